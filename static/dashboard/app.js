/**
 * The dashboard's entry point: completes an OAuth sign-in when the page is
 * the redirect target, then renders the view named by the location hash.
 */
import { ApiError, createApi } from "./api.js";
import { Auth, loadAuthSettings } from "./auth.js";
import { describeError, h, replace } from "./dom.js";
import { href, parseHash } from "./routes.js";
import { invitationView } from "./views/invitation.js";
import { liveWorkView } from "./views/live.js";
import { membersView } from "./views/members.js";
import { onboardingView } from "./views/onboarding.js";
import { organizationView } from "./views/organization.js";
import { organizationProfileView } from "./views/org_profile.js";
import { subprocessorsView } from "./views/subprocessors.js";
import { certificationsView } from "./views/certifications.js";
import { organizationDocumentsView } from "./views/org_documents.js";
import { answersView } from "./views/answers.js";
import { accountView } from "./views/account.js";
import { questionnairesView } from "./views/questionnaires.js";
import { questionnaireView } from "./views/questionnaire.js";
import { subscribersView } from "./views/subscribers.js";
import { storageView } from "./views/storage.js";
import { apiAccessView } from "./views/api_access.js";
import { projectView } from "./views/project.js";
import { renderTopbar, selectOrganization } from "./views/shell.js";
import { signInView } from "./views/signin.js";

const ORG_KEY = "tp.organization";
const main = document.getElementById("main");
const topbar = document.getElementById("topbar-tools");

const VIEWS = {
  organization: organizationView,
  members: membersView,
  profile: organizationProfileView,
  subprocessors: subprocessorsView,
  documents: organizationDocumentsView,
  answers: answersView,
  questionnaires: questionnairesView,
  questionnaire: questionnaireView,
  subscribers: subscribersView,
  live: liveWorkView,
  certifications: certificationsView,
  storage: storageView,
  apiAccess: apiAccessView,
  project: projectView,
};

/** State shared by the views and the operations they may ask for. */
class App {
  me = null;
  currentOrganizationId = null;
  #flash = null;
  #signInNotice = null;
  #signInError = null;
  #generation = 0;

  constructor(settings) {
    this.config = settings.config;
    this.auth = new Auth(settings);
    this.api = createApi(this.auth);
    this.auth.onSessionEnd = () => {
      this.me = null;
      this.#signInNotice = "Your session has ended. Sign in again to continue.";
      this.render();
    };
  }

  /** GET /me, cached until `force` or a sign-out. */
  async loadMe({ force = false } = {}) {
    if (!this.me || force) this.me = await this.api.get("/me");
    return this.me;
  }

  /** The caller's summary of an organization; a clear 403 when they are not a member. */
  async requireOrganization(id) {
    let organization = this.me.organizations.find((o) => o.id === id);
    if (!organization) {
      await this.loadMe({ force: true });
      organization = this.me.organizations.find((o) => o.id === id);
    }
    if (!organization) {
      throw new ApiError(403, "forbidden", "You are not a member of this organization");
    }
    this.setCurrentOrganization(organization.id);
    return organization;
  }

  setCurrentOrganization(id) {
    this.currentOrganizationId = id;
    sessionStorage.setItem(ORG_KEY, id);
    selectOrganization(topbar, id);
  }

  /** Redraws the top bar from the cached /me (after memberships change). */
  refreshTopbar() {
    renderTopbar(this, topbar, this.me);
  }

  setTitle(...parts) {
    document.title = [...parts, "Trust Profile"].join(" · ");
  }

  /** A message shown once at the top of the next view (after a save or a create). */
  flash(message) {
    this.#flash = message;
  }

  navigate(hash) {
    if (location.hash === hash) this.render();
    else location.hash = hash;
  }

  rerender() {
    return this.render();
  }

  signOut({ keepHash = false, notice = "You have signed out." } = {}) {
    const hash = keepHash ? location.hash : "";
    this.auth.revoke();
    sessionStorage.clear();
    this.me = null;
    this.currentOrganizationId = null;
    this.#signInNotice = notice;
    history.replaceState(null, "", `/dashboard/${hash}`);
    this.render();
  }

  /** Fails the sign-in visibly on the next render. */
  signInFailed(message) {
    this.#signInError = message;
  }

  notFoundView() {
    this.setTitle("Not found");
    return h(
      "div",
      { class: "narrow" },
      h(
        "section",
        { class: "card" },
        h("h1", { tabindex: "-1" }, "Page not found"),
        h("p", {}, "Nothing lives at this address in the dashboard."),
        h("a", { class: "btn btn-secondary", href: href.home() }, "Go to the dashboard"),
      ),
    );
  }

  /** The organization to open on the home route: the last one used, else the first. */
  #homeOrganization() {
    const remembered = this.currentOrganizationId ?? sessionStorage.getItem(ORG_KEY);
    return this.me.organizations.find((o) => o.id === remembered) ?? this.me.organizations[0];
  }

  async #resolve(route) {
    if (!this.auth.isSignedIn()) {
      renderTopbar(this, topbar, null);
      const view = signInView(this, {
        notice: this.#signInNotice,
        error: this.#signInError,
        invitationToken: route.name === "invitation" ? route.params[0] : undefined,
      });
      this.#signInNotice = null;
      this.#signInError = null;
      return view;
    }
    await this.loadMe();
    this.refreshTopbar();
    if (route.name === "invitation") return await invitationView(this, route.params[0]);
    if (route.name === "notFound") return this.notFoundView();
    if (route.name === "account") return accountView(this);
    if (this.me.organizations.length === 0) return onboardingView(this);
    if (route.name === "home") {
      const organization = this.#homeOrganization();
      history.replaceState(null, "", `/dashboard/${href.organization(organization.id)}`);
      return await organizationView(this, organization.id);
    }
    return await VIEWS[route.name](this, ...route.params);
  }

  /** Renders the current hash; a newer render supersedes an unfinished one. */
  async render({ focus = true } = {}) {
    const generation = ++this.#generation;
    const current = () => generation === this.#generation;
    main.setAttribute("aria-busy", "true");
    let content;
    try {
      content = await this.#resolve(parseHash(location.hash));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        // The session ended; unless that already re-rendered, show the sign-in.
        if (current()) await this.render({ focus });
        return;
      }
      content = errorView(this, error);
    }
    if (!current()) return;
    const flash = this.#flash;
    this.#flash = null;
    replace(
      main,
      flash && h("div", { class: "alert alert-success flash", role: "status" }, flash),
      content,
    );
    main.removeAttribute("aria-busy");
    if (focus) {
      scrollTo(0, 0);
      (main.querySelector("h1") ?? main).focus({ preventScroll: true });
    }
  }
}

function errorView(app, error) {
  app.setTitle("Problem");
  const forbidden = error instanceof ApiError && error.status === 403;
  return h(
    "div",
    { class: "narrow" },
    h(
      "section",
      { class: "card" },
      h("h1", { tabindex: "-1" }, forbidden ? "No access" : "Something went wrong"),
      h("div", { class: "alert alert-error", role: "alert" }, describeError(error)),
      h(
        "div",
        { class: "form-actions" },
        h("button", {
          type: "button",
          class: "btn btn-secondary",
          on: { click: () => app.render() },
        }, "Try again"),
        h("a", { class: "btn btn-secondary", href: href.home() }, "Go to the dashboard"),
      ),
    ),
  );
}

function fatal(message) {
  main.removeAttribute("aria-busy");
  replace(
    main,
    h(
      "div",
      { class: "narrow" },
      h(
        "section",
        { class: "card" },
        h("h1", {}, "The dashboard cannot start"),
        h("div", { class: "alert alert-error", role: "alert" }, message),
      ),
    ),
  );
}

/**
 * On Deno Deploy without a KV database proven to be assigned, nothing written would survive the
 * isolate: a banner above every view says so and what to do (the dashboard settings' `storage`,
 * which answer 200 whatever the readiness probe says).
 */
async function showStorageBanner() {
  let status;
  try {
    status = await (await fetch("/dashboard/config.json", { cache: "no-store" })).json();
  } catch {
    return;
  }
  const storage = status?.storage;
  if (!storage || storage.writable || !storage.action) return;
  main.before(
    h(
      "div",
      { class: "alert alert-warning storage-banner", role: "alert" },
      h("strong", {}, "Storage is not persistent. "),
      storage.action,
    ),
  );
}

async function start() {
  showStorageBanner();
  let settings;
  try {
    settings = await loadAuthSettings();
  } catch (error) {
    fatal(describeError(error));
    return;
  }
  const app = new App(settings);
  const url = new URL(location.href);
  if (Auth.isCallback(url)) {
    let returnHash = "";
    try {
      returnHash = await app.auth.completeSignIn(url);
    } catch (error) {
      app.signInFailed(describeError(error));
    }
    history.replaceState(null, "", `/dashboard/${returnHash}`);
  } else if (url.searchParams.has("signed-up")) {
    // Just signed up: the provider remembers this browser for one sign-in, so this goes
    // through without asking for the password again.
    history.replaceState(null, "", `/dashboard/${location.hash}`);
    if (!app.auth.isSignedIn()) {
      try {
        await app.auth.beginSignIn(location.hash);
        return;
      } catch (error) {
        app.signInFailed(describeError(error));
      }
    }
  }
  addEventListener("hashchange", () => app.render());
  // A link to the hash already shown (e.g. after a replaceState) still re-renders.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[href^='#']") : null;
    if (link && link.getAttribute("href") === location.hash && !event.defaultPrevented) {
      event.preventDefault();
      app.render();
    }
  });
  document.querySelector(".skip-link")?.addEventListener("click", (event) => {
    event.preventDefault();
    main.focus();
  });
  await app.render({ focus: false });
}

start();
