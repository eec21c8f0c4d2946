/**
 * Compliance frameworks a control can support, with their criterion ids, and which criteria
 * each control of the default catalog supports (docs/frameworks.md). Criterion ids are the
 * frameworks' own; every title is this service's short wording of what the criterion is
 * about, not the standard's text (those texts are copyrighted). A mapping says the control's
 * evidence supports the criterion, never that the vendor meets it.
 */

import { type CriterionRef, FRAMEWORK_IDS, type FrameworkId } from "../domain/frameworks.ts";

export type { CriterionRef, FrameworkId };

/** One criterion of a framework: its id in that framework and our wording of its subject. */
export interface FrameworkCriterion {
  id: string;
  title: string;
}

export interface Framework {
  /** Stable id used in the API and in OSCAL props. */
  id: FrameworkId;
  name: string;
  /** The edition the criterion ids come from. */
  edition: string;
  criteria: readonly FrameworkCriterion[];
}

const c = (id: string, title: string): FrameworkCriterion => ({ id, title });

const SOC2: Framework = {
  id: "soc2",
  name: "SOC 2",
  edition: "2017 Trust Services Criteria (revised points of focus, 2022)",
  criteria: [
    c("CC1.1", "Commitment to integrity and ethical values"),
    c("CC1.2", "Board independence and oversight of internal control"),
    c("CC1.3", "Structures, reporting lines and authorities"),
    c("CC1.4", "Attracting, developing and keeping competent people"),
    c("CC1.5", "Holding people accountable for internal control"),
    c("CC2.1", "Quality information supports internal control"),
    c("CC2.2", "Internal communication about internal control"),
    c("CC2.3", "Communication with external parties"),
    c("CC3.1", "Objectives clear enough to identify risks"),
    c("CC3.2", "Identifying and analysing risks"),
    c("CC3.3", "Considering the potential for fraud"),
    c("CC3.4", "Identifying changes that affect internal control"),
    c("CC4.1", "Ongoing and separate evaluations of controls"),
    c("CC4.2", "Communicating control deficiencies in time"),
    c("CC5.1", "Control activities that reduce risks"),
    c("CC5.2", "General controls over technology"),
    c("CC5.3", "Policies and procedures put into practice"),
    c("CC6.1", "Logical access security over protected assets"),
    c("CC6.2", "Registering and authorizing new users"),
    c("CC6.3", "Granting, changing and removing access"),
    c("CC6.4", "Restricting physical access"),
    c("CC6.5", "Protecting data when assets are disposed of"),
    c("CC6.6", "Protection against threats from outside the system boundary"),
    c("CC6.7", "Restricting and protecting data in transit and movement"),
    c("CC6.8", "Preventing or detecting unauthorized or malicious software"),
    c("CC7.1", "Detecting configuration changes and newly found vulnerabilities"),
    c("CC7.2", "Monitoring system components for anomalies"),
    c("CC7.3", "Evaluating security events"),
    c("CC7.4", "Responding to security incidents"),
    c("CC7.5", "Recovering from security incidents"),
    c("CC8.1", "Authorizing, testing and approving changes before they are made"),
    c("CC9.1", "Mitigating risks of business disruption"),
    c("CC9.2", "Managing risks from vendors and business partners"),
    c("A1.1", "Managing processing capacity"),
    c("A1.2", "Environmental protections, backups and recovery infrastructure"),
    c("A1.3", "Testing recovery plans"),
    c("C1.1", "Identifying and keeping confidential information"),
    c("C1.2", "Disposing of confidential information"),
    c("PI1.1", "Information about processing objectives and specifications"),
    c("PI1.2", "Complete and accurate system inputs"),
    c("PI1.3", "Complete, accurate and timely processing"),
    c("PI1.4", "Complete, accurate and timely outputs"),
    c("PI1.5", "Storing inputs, items in processing and outputs"),
    c("P1.1", "Privacy notice"),
    c("P2.1", "Choice and consent"),
    c("P3.1", "Collecting personal information for stated purposes"),
    c("P3.2", "Explicit consent where needed"),
    c("P4.1", "Using personal information for its purposes"),
    c("P4.2", "Retaining personal information"),
    c("P4.3", "Disposing of personal information"),
    c("P5.1", "Access by data subjects"),
    c("P5.2", "Correction by data subjects"),
    c("P6.1", "Disclosure to third parties with consent"),
    c("P6.2", "Records of authorized disclosures"),
    c("P6.3", "Records of unauthorized disclosures"),
    c("P6.4", "Commitments from vendors who receive personal information"),
    c("P6.5", "Notice of unauthorized disclosures by vendors"),
    c("P6.6", "Notifying affected people of breaches"),
    c("P6.7", "Accounting of disclosures to data subjects"),
    c("P7.1", "Quality of personal information"),
    c("P8.1", "Handling privacy inquiries, complaints and disputes"),
  ],
};

const ISO27001: Framework = {
  id: "iso27001",
  name: "ISO/IEC 27001",
  edition: "ISO/IEC 27001:2022 Annex A",
  criteria: [
    c("A.5.1", "Security policies"),
    c("A.5.2", "Security roles and responsibilities"),
    c("A.5.3", "Separating conflicting duties"),
    c("A.5.4", "Management's security responsibilities"),
    c("A.5.5", "Contact with authorities"),
    c("A.5.6", "Contact with special interest groups"),
    c("A.5.7", "Gathering threat intelligence"),
    c("A.5.8", "Security in project management"),
    c("A.5.9", "Inventory of information and assets"),
    c("A.5.10", "Acceptable use of information and assets"),
    c("A.5.11", "Returning assets"),
    c("A.5.12", "Classifying information"),
    c("A.5.13", "Labelling information"),
    c("A.5.14", "Transferring information"),
    c("A.5.15", "Access control rules"),
    c("A.5.16", "Managing identities"),
    c("A.5.17", "Managing authentication information"),
    c("A.5.18", "Granting and reviewing access rights"),
    c("A.5.19", "Security with suppliers"),
    c("A.5.20", "Security in supplier agreements"),
    c("A.5.21", "Security of the ICT supply chain"),
    c("A.5.22", "Monitoring and reviewing supplier services"),
    c("A.5.23", "Security of cloud services used"),
    c("A.5.24", "Planning for incident management"),
    c("A.5.25", "Assessing security events"),
    c("A.5.26", "Responding to incidents"),
    c("A.5.27", "Learning from incidents"),
    c("A.5.28", "Collecting evidence"),
    c("A.5.29", "Security during disruption"),
    c("A.5.30", "ICT readiness for business continuity"),
    c("A.5.31", "Legal, regulatory and contractual requirements"),
    c("A.5.32", "Intellectual property rights"),
    c("A.5.33", "Protecting records"),
    c("A.5.34", "Privacy and personal data"),
    c("A.5.35", "Independent review of security"),
    c("A.5.36", "Compliance with security policies and standards"),
    c("A.5.37", "Documented operating procedures"),
    c("A.6.1", "Screening staff"),
    c("A.6.2", "Employment terms"),
    c("A.6.3", "Security awareness and training"),
    c("A.6.4", "Disciplinary process"),
    c("A.6.5", "Duties after leaving or changing roles"),
    c("A.6.6", "Confidentiality agreements"),
    c("A.6.7", "Working remotely"),
    c("A.6.8", "Reporting security events"),
    c("A.7.1", "Physical perimeters"),
    c("A.7.2", "Physical entry"),
    c("A.7.3", "Securing offices and facilities"),
    c("A.7.4", "Monitoring physical security"),
    c("A.7.5", "Physical and environmental threats"),
    c("A.7.6", "Working in secure areas"),
    c("A.7.7", "Clear desks and screens"),
    c("A.7.8", "Siting and protecting equipment"),
    c("A.7.9", "Assets off the premises"),
    c("A.7.10", "Storage media"),
    c("A.7.11", "Supporting utilities"),
    c("A.7.12", "Cabling"),
    c("A.7.13", "Maintaining equipment"),
    c("A.7.14", "Disposing of or reusing equipment"),
    c("A.8.1", "User endpoint devices"),
    c("A.8.2", "Privileged access"),
    c("A.8.3", "Restricting access to information"),
    c("A.8.4", "Access to source code"),
    c("A.8.5", "Secure authentication"),
    c("A.8.6", "Capacity"),
    c("A.8.7", "Protection against malware"),
    c("A.8.8", "Handling technical vulnerabilities"),
    c("A.8.9", "Configuration management"),
    c("A.8.10", "Deleting information"),
    c("A.8.11", "Masking data"),
    c("A.8.12", "Preventing data leakage"),
    c("A.8.13", "Backups"),
    c("A.8.14", "Redundant processing facilities"),
    c("A.8.15", "Logging"),
    c("A.8.16", "Monitoring for anomalous behaviour"),
    c("A.8.17", "Synchronized clocks"),
    c("A.8.18", "Privileged utility programs"),
    c("A.8.19", "Installing software on production systems"),
    c("A.8.20", "Network security"),
    c("A.8.21", "Security of network services"),
    c("A.8.22", "Separating networks"),
    c("A.8.23", "Filtering web access"),
    c("A.8.24", "Cryptography"),
    c("A.8.25", "Secure development life cycle"),
    c("A.8.26", "Application security requirements"),
    c("A.8.27", "Secure architecture and engineering"),
    c("A.8.28", "Secure coding"),
    c("A.8.29", "Security testing before acceptance"),
    c("A.8.30", "Outsourced development"),
    c("A.8.31", "Separate development, test and production environments"),
    c("A.8.32", "Change management"),
    c("A.8.33", "Test information"),
    c("A.8.34", "Protecting systems during audit testing"),
  ],
};

const SSDF: Framework = {
  id: "ssdf",
  name: "NIST SSDF",
  edition: "NIST SP 800-218 version 1.1 (tasks)",
  criteria: [
    c("PO.1.1", "Security requirements for development infrastructure and processes"),
    c("PO.1.2", "Security requirements for the software being developed"),
    c("PO.1.3", "Security requirements passed on to third-party suppliers"),
    c("PO.2.1", "Roles and responsibilities for secure development"),
    c("PO.2.2", "Role-based training for secure development"),
    c("PO.2.3", "Management commitment to secure development"),
    c("PO.3.1", "Choosing the tools of the toolchain"),
    c("PO.3.2", "Deploying and maintaining the toolchain securely"),
    c("PO.3.3", "Tools produce artifacts that show secure practices are followed"),
    c("PO.4.1", "Criteria for software security checks"),
    c("PO.4.2", "Gathering the information the check criteria need"),
    c("PO.5.1", "Separating and protecting development environments"),
    c("PO.5.2", "Securing development endpoints"),
    c("PS.1.1", "Protecting code from unauthorized access and tampering"),
    c("PS.2.1", "Letting consumers verify release integrity"),
    c("PS.3.1", "Archiving each release and its files"),
    c("PS.3.2", "Keeping and sharing provenance data of each release's components"),
    c("PW.1.1", "Risk modelling of the design"),
    c("PW.1.2", "Tracking the design's security requirements and decisions"),
    c("PW.1.3", "Using standard security features and services"),
    c("PW.2.1", "Reviewing the design against security requirements"),
    c("PW.4.1", "Acquiring and maintaining well-secured components"),
    c("PW.4.2", "Creating well-secured components in-house"),
    c("PW.4.4", "Verifying acquired components stay secure through their life"),
    c("PW.5.1", "Following secure coding practices"),
    c("PW.6.1", "Compilers, interpreters and build tools with security features"),
    c("PW.6.2", "Build settings that improve executable security"),
    c("PW.7.1", "Deciding how to review or analyze code"),
    c("PW.7.2", "Reviewing or analyzing code for vulnerabilities"),
    c("PW.8.1", "Deciding how to test executable code"),
    c("PW.8.2", "Testing executable code for vulnerabilities"),
    c("PW.9.1", "Secure default settings"),
    c("PW.9.2", "Documenting the default settings"),
    c("RV.1.1", "Gathering information on vulnerabilities in the software and its components"),
    c("RV.1.2", "Reviewing, analyzing or testing code for unknown vulnerabilities"),
    c("RV.1.3", "A policy and process for disclosing and fixing vulnerabilities"),
    c("RV.2.1", "Analyzing each vulnerability to plan its fix"),
    c("RV.2.2", "Planning and carrying out risk responses"),
    c("RV.3.1", "Finding the root causes of vulnerabilities"),
    c("RV.3.2", "Analyzing root causes over time for patterns"),
    c("RV.3.3", "Finding and fixing similar vulnerabilities elsewhere"),
    c("RV.3.4", "Improving the development process to prevent recurrence"),
  ],
};

const SLSA: Framework = {
  id: "slsa",
  name: "SLSA",
  edition: "SLSA v1.0 Build track (levels and requirements)",
  criteria: [
    c("build-l1", "Build L1: provenance shows how the package was built"),
    c("build-l2", "Build L2: signed provenance from a hosted build platform"),
    c("build-l3", "Build L3: a hardened build platform"),
    c("consistent-build-process", "Producer: packages are built the same, expected way"),
    c("distribute-provenance", "Producer: provenance is shared with consumers"),
    c("provenance-exists", "Build platform: provenance is generated"),
    c("provenance-authentic", "Build platform: provenance is authentic and unchanged"),
    c("provenance-unforgeable", "Build platform: tenants cannot forge provenance"),
    c("hosted", "Build platform: builds run on shared or dedicated hosted infrastructure"),
    c("isolated", "Build platform: builds cannot influence each other"),
  ],
};

/** Every framework, in the order pages list them. */
export const FRAMEWORKS: readonly Framework[] = [SOC2, ISO27001, SSDF, SLSA];

const BY_ID = new Map(FRAMEWORKS.map((f) => [f.id, f]));
const CRITERIA = new Map(
  FRAMEWORKS.map((f) => [f.id, new Map(f.criteria.map((x, i) => [x.id, { ...x, position: i }]))]),
);

/** The framework with this id, or undefined. */
export function frameworkById(id: string): Framework | undefined {
  return BY_ID.get(id as FrameworkId);
}

/** The criterion `ref` names, with its position in its framework, or undefined when unknown. */
export function criterionOf(
  ref: { framework: string; id: string },
): (FrameworkCriterion & { position: number }) | undefined {
  return CRITERIA.get(ref.framework as FrameworkId)?.get(ref.id);
}

const ref = (framework: FrameworkId, ...ids: string[]): CriterionRef[] =>
  ids.map((id) => ({ framework, id }));

/** The criteria each default catalog control's evidence supports, by control key. */
export const CATALOG_CRITERIA: Readonly<Record<string, readonly CriterionRef[]>> = {
  "collector.heartbeat": [
    ...ref("soc2", "CC4.1", "CC7.2"),
    ...ref("iso27001", "A.8.16"),
    ...ref("ssdf", "PO.3.3"),
  ],
  "evidence.sbom": [
    ...ref("soc2", "CC7.1"),
    ...ref("iso27001", "A.5.9", "A.5.21"),
    ...ref("ssdf", "PS.3.2"),
  ],
  "evidence.vulnerability_scan": [
    ...ref("soc2", "CC7.1"),
    ...ref("iso27001", "A.8.8"),
    ...ref("ssdf", "PW.4.4", "RV.1.1", "RV.1.2"),
  ],
  "evidence.build_provenance": [
    ...ref("soc2", "CC8.1"),
    ...ref("iso27001", "A.8.25"),
    ...ref("ssdf", "PS.2.1", "PS.3.2"),
    ...ref("slsa", "provenance-exists", "provenance-authentic", "distribute-provenance"),
  ],
  "evidence.dependency_inventory": [
    ...ref("soc2", "CC7.1"),
    ...ref("iso27001", "A.5.9", "A.5.21"),
    ...ref("ssdf", "PS.3.2", "PW.4.1"),
  ],
  "evidence.deployment_snapshot": [
    ...ref("soc2", "A1.1", "CC7.2"),
    ...ref("iso27001", "A.8.14", "A.8.16"),
  ],
  "evidence.policy_result": [
    ...ref("soc2", "CC7.1", "CC8.1"),
    ...ref("iso27001", "A.8.9"),
    ...ref("ssdf", "PO.4.1", "PO.4.2"),
  ],
};

/** Whether `key` is a default catalog control (its criteria are CATALOG_CRITERIA's). */
export function hasCatalogCriteria(key: string): boolean {
  return Object.hasOwn(CATALOG_CRITERIA, key);
}

/** `refs` without repeats, in framework order and each framework's criterion order. */
export function sortCriteria(refs: readonly CriterionRef[]): CriterionRef[] {
  const seen = new Set<string>();
  const order = (r: CriterionRef) => FRAMEWORK_IDS.indexOf(r.framework);
  return refs.filter((r) => {
    const key = `${r.framework}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).sort((a, b) =>
    order(a) - order(b) || (criterionOf(a)?.position ?? 0) - (criterionOf(b)?.position ?? 0)
  );
}

/** The criteria of a control: the catalog's for catalog keys, else the operator's mapping. */
export function criteriaOfControl(
  key: string,
  custom: ReadonlyMap<string, readonly CriterionRef[]>,
): CriterionRef[] {
  return sortCriteria(hasCatalogCriteria(key) ? CATALOG_CRITERIA[key] : custom.get(key) ?? []);
}
