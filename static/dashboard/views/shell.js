/** The top bar's tools: organization switcher and the signed-in user. */
import { h, replace } from "../dom.js";
import { href } from "../routes.js";

/** Fills `container` for `me` (or empties it when signed out). */
export function renderTopbar(app, container, me) {
  if (!me) {
    replace(container);
    return;
  }
  const switcher = me.organizations.length > 0 &&
    h(
      "div",
      { class: "org-switcher" },
      h("label", { for: "org-switcher", class: "visually-hidden" }, "Organization"),
      h(
        "select",
        {
          id: "org-switcher",
          value: app.currentOrganizationId ?? "",
          on: {
            change: (event) => app.navigate(href.organization(event.currentTarget.value)),
          },
        },
        me.organizations.map((o) => h("option", { value: o.id }, o.name)),
      ),
    );
  replace(
    container,
    switcher,
    h(
      "div",
      { class: "user-menu" },
      h(
        "span",
        { class: "user-identity" },
        h("span", { class: "user-name" }, me.user.name || me.user.email),
        h("span", { class: "user-email" }, me.user.email),
      ),
      h("a", { href: href.account(), class: "btn btn-secondary btn-small" }, "Account"),
      h("button", {
        type: "button",
        class: "btn btn-secondary btn-small",
        on: { click: () => app.signOut() },
      }, "Sign out"),
    ),
  );
}

/** Points the switcher at `organizationId` without re-rendering the bar. */
export function selectOrganization(container, organizationId) {
  const select = container.querySelector("#org-switcher");
  if (select && organizationId) select.value = organizationId;
}
