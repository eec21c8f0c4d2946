/**
 * The latest trust page's certifications: the organization's and this project's claims as
 * cards on the first screen, after the headline, with their status as of the request (an
 * achieved claim past its expiry shows expired without anything else happening first).
 */
import {
  CERTIFICATIONS_STYLE,
  certificationsMarkdown,
  certificationsSection,
} from "../../publish/render/certifications.ts";
import { getOrganization } from "../../store/organizations.ts";
import { publicCertificationsOf } from "../certifications.ts";
import type { LiveSection } from "../live_sections.ts";

export const certificationsLiveSection: LiveSection = {
  id: "certifications",
  async render({ kv, config, clock, project }) {
    const organization = await getOrganization(kv, project.organizationId);
    if (!organization) return null;
    const certifications = await publicCertificationsOf(kv, {
      config,
      organization,
      scope: { projectId: project.id },
      now: clock.now(),
    });
    if (certifications.length === 0) return null;
    return {
      placement: "top",
      html: certificationsSection(certifications, {
        idPrefix: "live-certifications",
        showProject: false,
      }),
      markdown: certificationsMarkdown(certifications),
      styles: [CERTIFICATIONS_STYLE],
    };
  },
};
