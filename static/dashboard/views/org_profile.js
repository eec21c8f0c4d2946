/**
 * An organization's vendor profile: who the vendor is on its public trust pages (name,
 * description, website, security contact, brand colour and logo). Owners edit it; members
 * see it read-only. Changes show on the trust center at once and on project pages from
 * their next publication.
 */
import { field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { confirmAction, runButton } from "../widgets.js";
import { card, facts } from "./layout.js";
import { organizationHeader, trustCenterUrl } from "./organization.js";
import { offeringFacts, offeringForm } from "./offering.js";

const profilePath = (id) => `/organizations/${encodeURIComponent(id)}/profile`;
const logoPath = (id) => `/organizations/${encodeURIComponent(id)}/logo`;
const HEX = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.x contrast of white text on `#rrggbb` (the server checks the same, ≥ 4.5). */
function contrastWithWhite(color) {
  const channel = (i) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return 1.05 / (l + 0.05);
}

function colorPreview(input) {
  const swatch = h("span", { class: "brand-swatch", "aria-hidden": "true" }, "Vendor");
  const status = h("p", { class: "hint", "aria-live": "polite" });
  const update = () => {
    const value = input.value.trim();
    if (!value) {
      swatch.hidden = true;
      replace(status, "No brand colour: the pages keep their own accent.");
    } else if (!HEX.test(value)) {
      swatch.hidden = true;
      replace(status, "Write the colour as #rrggbb, for example #1d4ed8.");
    } else {
      const ratio = contrastWithWhite(value);
      swatch.hidden = false;
      swatch.style.backgroundColor = value;
      replace(
        status,
        `White text on it: ${ratio.toFixed(2)}:1 ${
          ratio >= 4.5 ? "(meets 4.5:1)" : "(below 4.5:1; choose a darker colour)"
        }`,
      );
    }
  };
  input.addEventListener("input", update);
  update();
  return h("div", { class: "brand-preview" }, swatch, status);
}

const text = (name, value, props = {}) =>
  h("input", { name, value: value ?? "", autocomplete: "off", ...props });

function profileForm(app, organization, profile, onSaved) {
  const errorSlot = h("div", { class: "form-errors" });
  const color = text("brandColor", profile.brandColor, { maxlength: "7", placeholder: "#1d4ed8" });
  const form = h(
    "form",
    { class: "form" },
    field(
      "Display name",
      text("displayName", profile.displayName, { maxlength: "200" }),
      `Shown as the vendor; “${organization.name}” when empty.`,
    ),
    field(
      "Description",
      h(
        "textarea",
        { name: "description", maxlength: "500", rows: "3" },
        profile.description ?? "",
      ),
      "Plain text, up to 500 characters.",
    ),
    field("Website", text("website", profile.website, { type: "url", placeholder: "https://" })),
    field(
      "Security contact email",
      text("securityEmail", profile.securityContact.email, { type: "email", maxlength: "254" }),
      "Published in security.txt and on the trust pages.",
    ),
    field(
      "Security policy URL",
      text("securityUrl", profile.securityContact.url, { type: "url", placeholder: "https://" }),
    ),
    field("Brand colour", color, colorPreview(color)),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save profile"),
    ),
  );
  const value = (data, name) => String(data.get(name) ?? "").trim() || null;
  handleSubmit(form, errorSlot, async (data) => {
    const { profile: saved } = await app.api.patch(profilePath(organization.id), {
      displayName: value(data, "displayName"),
      description: value(data, "description"),
      website: value(data, "website"),
      securityContact: { email: value(data, "securityEmail"), url: value(data, "securityUrl") },
      brandColor: value(data, "brandColor"),
    });
    onSaved(saved, "Profile saved");
  });
  return form;
}

function logoEditor(app, organization, profile, onSaved) {
  const errorSlot = h("div", { class: "form-errors" });
  const input = h("input", {
    type: "file",
    name: "logo",
    accept: "image/png,image/jpeg,image/webp",
  });
  const upload = h("button", { type: "button", class: "btn btn-primary" }, "Upload logo");
  upload.addEventListener("click", () =>
    runButton(upload, errorSlot, async () => {
      const file = input.files?.[0];
      if (!file) throw new Error("Choose an image file first");
      const { profile: saved } = await app.api.putFile(logoPath(organization.id), file);
      onSaved(saved, "Logo uploaded");
    }));
  const remove = profile.logo && confirmAction({
    label: "Remove logo",
    question: "Remove the logo?",
    errorSlot,
    run: async () => {
      const { profile: saved } = await app.api.delete(logoPath(organization.id));
      onSaved(saved, "Logo removed");
    },
  });
  return h(
    "div",
    { class: "form" },
    logoPreview(profile),
    field("Logo image", input, "PNG, JPEG or WebP, at most 256 KiB. SVG is refused."),
    errorSlot,
    h("div", { class: "form-actions" }, upload, remove),
  );
}

function logoPreview(profile) {
  if (!profile.logo) return h("p", { class: "hint" }, "No logo yet.");
  return h("img", {
    class: "logo-preview",
    src: profile.logo.url,
    alt: "Current logo",
    width: "64",
    height: "64",
  });
}

function readOnly(organization, profile) {
  const none = "Not set";
  return h(
    "div",
    {},
    profile.logo && logoPreview(profile),
    facts([
      ["Display name", profile.displayName ?? organization.name],
      ["Description", profile.description ?? none],
      ["Website", profile.website ?? none],
      ["Security contact", profile.securityContact.email ?? none],
      ["Security policy", profile.securityContact.url ?? none],
      ["Brand colour", profile.brandColor ?? none],
    ]),
    h("p", { class: "hint" }, "Only owners of the organization can change the profile."),
  );
}

export async function organizationProfileView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Vendor profile", organization.name);
  const { profile } = await app.api.get(profilePath(organization.id));
  const statusSlot = h("div", {});
  const body = h("div", { class: "layout-split" });
  const draw = (current, message) => {
    const owner = organization.role === "owner";
    replace(
      body,
      card(
        "Vendor profile",
        owner ? profileForm(app, organization, current, draw) : readOnly(organization, current),
        {
          description:
            "Who publishes the trust profiles: shown on the trust center at once, and on project pages from their next publication.",
        },
      ),
      card("Logo", owner ? logoEditor(app, organization, current, draw) : logoPreview(current), {
        description: "Served from this service with a strict content type.",
      }),
      card(
        "Service offering",
        owner
          ? offeringForm(current.offering, async (offering) => {
            const { profile: saved } = await app.api.patch(profilePath(organization.id), {
              offering,
            });
            draw(saved, "Offering saved");
          })
          : offeringFacts(current.offering),
        {
          description:
            "What FedRAMP's Authorization Data Sharing process asks a provider to publish (ADS-01): shown on the trust center at once, as HTML, Markdown, JSON and ads.json.",
        },
      ),
    );
    replace(statusSlot, message ? successAlert(message) : null);
  };
  draw(profile);
  return h(
    "div",
    {},
    organizationHeader(organization, "profile"),
    h(
      "p",
      {},
      "Public page: ",
      h("a", { href: trustCenterUrl(organization) }, "the organization's trust center"),
    ),
    statusSlot,
    body,
  );
}
