/**
 * Hash routes of the dashboard. Every location is a fragment, so the server
 * serves one page and a reload keeps the view: `#/orgs/<id>`,
 * `#/orgs/<id>/members`, `#/orgs/<id>/profile`, `#/orgs/<id>/subprocessors`, `#/orgs/<id>/documents`,
 * `#/orgs/<id>/answers`, `#/orgs/<id>/questionnaires[/<questionnaireId>]`, `#/orgs/<id>/subscribers`, `#/orgs/<id>/live`, `#/orgs/<id>/certifications`, `#/orgs/<id>/storage`, `#/orgs/<id>/api-access`,
 * `#/projects/<id>[/<section>]`, and the accept link
 * of an invitation, `#invitation=<token>`.
 */

const seg = (value) => encodeURIComponent(value);

/** Links to the dashboard's views. */
export const href = {
  home: () => "#/",
  account: () => "#/account",
  organization: (id) => `#/orgs/${seg(id)}`,
  members: (id) => `#/orgs/${seg(id)}/members`,
  profile: (id) => `#/orgs/${seg(id)}/profile`,
  subprocessors: (id) => `#/orgs/${seg(id)}/subprocessors`,
  documents: (id) => `#/orgs/${seg(id)}/documents`,
  answers: (id) => `#/orgs/${seg(id)}/answers`,
  questionnaires: (id) => `#/orgs/${seg(id)}/questionnaires`,
  questionnaire: (id, questionnaireId) =>
    `#/orgs/${seg(id)}/questionnaires/${seg(questionnaireId)}`,
  subscribers: (id) => `#/orgs/${seg(id)}/subscribers`,
  live: (id) => `#/orgs/${seg(id)}/live`,
  certifications: (id) => `#/orgs/${seg(id)}/certifications`,
  storage: (id) => `#/orgs/${seg(id)}/storage`,
  apiAccess: (id) => `#/orgs/${seg(id)}/api-access`,
  project: (id, section) => `#/projects/${seg(id)}${section ? `/${seg(section)}` : ""}`,
};

const ROUTES = [
  { name: "home", pattern: /^\/$/ },
  { name: "account", pattern: /^\/account$/ },
  { name: "organization", pattern: /^\/orgs\/([^/]+)$/ },
  { name: "members", pattern: /^\/orgs\/([^/]+)\/members$/ },
  { name: "profile", pattern: /^\/orgs\/([^/]+)\/profile$/ },
  { name: "subprocessors", pattern: /^\/orgs\/([^/]+)\/subprocessors$/ },
  { name: "documents", pattern: /^\/orgs\/([^/]+)\/documents$/ },
  { name: "answers", pattern: /^\/orgs\/([^/]+)\/answers$/ },
  { name: "questionnaires", pattern: /^\/orgs\/([^/]+)\/questionnaires$/ },
  { name: "questionnaire", pattern: /^\/orgs\/([^/]+)\/questionnaires\/([^/]+)$/ },
  { name: "subscribers", pattern: /^\/orgs\/([^/]+)\/subscribers$/ },
  { name: "live", pattern: /^\/orgs\/([^/]+)\/live$/ },
  { name: "certifications", pattern: /^\/orgs\/([^/]+)\/certifications$/ },
  { name: "storage", pattern: /^\/orgs\/([^/]+)\/storage$/ },
  { name: "apiAccess", pattern: /^\/orgs\/([^/]+)\/api-access$/ },
  { name: "project", pattern: /^\/projects\/([^/]+)(?:\/([a-z-]+))?$/ },
];

/** The route named by a location hash, with its decoded parameters. */
export function parseHash(hash) {
  if (hash.startsWith("#invitation=")) {
    return { name: "invitation", params: [decodeURIComponent(hash.slice("#invitation=".length))] };
  }
  const path = hash.startsWith("#/") ? hash.slice(1) : "/";
  for (const route of ROUTES) {
    const match = path.match(route.pattern);
    if (match) {
      let params;
      try {
        params = match.slice(1).map((p) => (p === undefined ? undefined : decodeURIComponent(p)));
      } catch {
        break;
      }
      return { name: route.name, params };
    }
  }
  return { name: "notFound", params: [] };
}
