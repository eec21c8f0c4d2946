/**
 * The vocabulary tables of questionnaire matching's text analysis (match_text.ts): stop words,
 * the trade's abbreviations, stems and phrases brought to one term, the control vocabulary's
 * synonym groups, acronyms and the qualifier classes of negative evidence. Data only.
 */

/** English function words and the filler of questionnaires ("Do you…", "Please describe…"). */
export const STOP_WORDS = new Set(
  (
    "a about above after all also am an and any are as at be been before being below between " +
    "both but by can could did do does doing done each either etc for from further had has have " +
    "having here how i if in into is it its itself just least may me might more most must my " +
    "no nor not of off on once only or other our ours out over own per please same shall should " +
    "so some such than that the their theirs them then there these they this those through to " +
    "too under until up upon us very via was we were what when where whether which while who " +
    "whom why will with within would yes you your yours " +
    // Questionnaire filler: present in most questions, telling none apart.
    "applicable company describe detail details ensure explain organization organisation " +
    "organization's provide provided service services vendor's yourself"
  ).split(" "),
);

/** Abbreviations of the field, spelled out on both sides (the abbreviation is kept too). */
export const ABBREVIATIONS = table({
  "2fa": "two factor authentication",
  av: "antivirus malware",
  bcp: "business continuity plan",
  byod: "bring own device",
  ddos: "distributed denial service",
  dlp: "data loss prevention",
  dpa: "data processing agreement",
  dr: "disaster recovery",
  edr: "endpoint detection response",
  hsm: "hardware security module",
  iam: "identity access management",
  kms: "key management",
  mdm: "mobile device management",
  mfa: "multi factor authentication",
  nda: "non disclosure agreement",
  pam: "privileged access management",
  pentest: "penetration test",
  pentests: "penetration test",
  pii: "personal data",
  rbac: "role based access control",
  rpo: "recovery point objective",
  rto: "recovery time objective",
  sast: "static code analysis",
  dast: "dynamic application scanning",
  sdlc: "software development lifecycle",
  siem: "security event log monitoring",
  sso: "single signin",
  sla: "level agreement uptime",
  dpo: "data protection officer",
  eea: "european economic area",
  idp: "identity provider",
  okta: "identity provider",
  entra: "identity provider",
  vuln: "vulnerability",
  vulns: "vulnerability",
});

/** Stems of words the trade uses for one thing, brought to one term. */
export const SYNONYMS = table({
  personnel: "employe",
  staff: "employe",
  workforc: "employe",
  worker: "employe",
  supplier: "vendor",
  subprocessor: "vendor",
  subcontractor: "vendor",
  erasur: "delet",
  eras: "delet",
  wipe: "delet",
  destruct: "delet",
  destroi: "delet",
  dispos: "delet",
  retent: "retain",
  passphras: "password",
  laptop: "endpoint",
  workstat: "endpoint",
  cipher: "encrypt",
  ciphertext: "encrypt",
  tamper: "integr",
  decommiss: "delet",
  pentest: "penetr",
  onboard: "hire",
  offboard: "termin",
  leaver: "termin",
  joiner: "hire",
  breach: "incid",
  compromis: "incid",
  tell: "notifi",
  notif: "notifi",
  classif: "classifi",
  label: "classifi",
  recertif: "review",
  recertifi: "review",
  deviat: "except",
  uptim: "avail",
  flaw: "vulner",
  login: "signin",
  logon: "signin",
});

/**
 * Phrases that mean one thing, read before the words are split apart ("log in" is no log,
 * "third party" is a vendor); the replacement is analysed like any other word.
 */
export const PHRASES = table({
  "log in": "signin",
  "log on": "signin",
  "logged in": "signin",
  "logging in": "signin",
  "sign in": "signin",
  "sign on": "signin",
  "signed in": "signin",
  "signing in": "signin",
  "third party": "vendor",
  "third parties": "vendor",
  "data center": "datacenter",
  "data centers": "datacenter",
  "data centre": "datacenter",
  "data centres": "datacenter",
  "post mortem": "postmortem",
  "lessons learned": "postmortem",
  "root cause": "postmortem",
  "api key": "credential",
  "api keys": "credential",
  "azure ad": "okta",
});

/** A lookup table as a Map: a question's word "constructor" must find nothing. */
export function table(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

/**
 * The trade's own words for one thing that WordNet does not group (its synsets are strict:
 * "staff" and "employee" are no synonyms there), each line one group. A question's word finds
 * the other words of its groups, as with WordNet's.
 */
export const CONTROL_VOCABULARY = [
  "employee staff personnel workforce worker",
  "supplier vendor subprocessor subcontractor provider",
  "fix remediate patch resolve",
  "test exercise rehearse drill simulate",
  "encrypt encryption cipher scramble",
  "delete erase purge remove destroy wipe",
  "review recertify audit assess evaluate",
  "notify inform tell alert",
  "breach incident compromise",
  "hire recruit candidate onboard",
  "leave quit depart terminate offboard leaver",
  "restore recover recovery",
  "store keep retain hold",
  "outage disruption disaster downtime",
  "laptop notebook workstation computer endpoint",
  "permission privilege entitlement right",
  "sanction discipline disciplinary",
  "tenant customer",
  "firewall filter",
  "identity account",
  "hash hashed",
  "uptime availability",
];

/** Abbreviations a question may use that the knowledge base spells out, or the reverse. */
export const ACRONYMS: Record<string, string> = {
  sso: "single sign on",
  saml: "single sign on",
  oidc: "single sign on",
  mfa: "multi factor authentication",
  "2fa": "two factor authentication",
  rto: "recovery time objective",
  rpo: "recovery point objective",
  dr: "disaster recovery",
  bcp: "business continuity plan",
  sbom: "software bill of materials",
  dpa: "data processing agreement",
  dpo: "data protection officer",
  edr: "endpoint detection response",
  ids: "intrusion detection",
  ips: "intrusion prevention",
  waf: "web application firewall",
  cspm: "cloud security posture",
  mdm: "mobile device management",
  siem: "security event monitoring",
  sast: "static analysis",
  dast: "dynamic analysis",
  vdp: "vulnerability disclosure",
  nda: "non disclosure agreement",
  aup: "acceptable use policy",
  ciso: "chief information security officer",
  isms: "information security management",
  dlp: "data loss prevention",
  byok: "customer managed key",
  cmk: "customer managed key",
  tls: "transport encryption",
  https: "transport encryption",
  ntp: "time synchronisation",
  pii: "personal data",
  dsar: "data subject request",
  pci: "payment card",
  ccpa: "california consumer privacy act",
  gdpr: "general data protection regulation",
  hipaa: "health insurance portability",
  soc: "service organization control",
  cve: "known vulnerability",
  cicd: "build pipeline",
  sla: "service level agreement",
  vpn: "virtual private network",
  ddos: "denial of service",
  scc: "standard contractual clauses",
};

/**
 * Qualifiers: words that narrow a question to someone or something else than the vendor's own
 * service. A question about a sub-processor's, an internal tool's or a SCIM integration's
 * practice is not answered by the answer about the vendor's own, so a suggestion whose texts
 * never name the qualifier loses score. Each class is the words that name it; "third party"
 * is left out on purpose (an independent third party tests, it is not who is asked about).
 */
export const QUALIFIER_CLASSES: Record<string, string[]> = {
  supplier: [
    "subprocessor",
    "subprocessors",
    "supplier",
    "suppliers",
    "vendor",
    "vendors",
    "subcontractor",
    "subcontractors",
  ],
  internal: ["internal"],
  scim: ["scim"],
  affiliate: ["affiliate", "affiliates", "subsidiary", "subsidiaries"],
};
