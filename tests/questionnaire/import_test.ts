/**
 * An answered questionnaire read back as answers (src/questionnaire/import.ts) on a workbook
 * built by hand as XML: a SIG-like sheet whose Response drop-down holds Yes/No and whose
 * Additional Information explains, headings as categories, rows asking the same merged by id,
 * by words and by answer text, unanswered rows counted and left out.
 */
import assert from "node:assert/strict";
import { strToU8 } from "fflate";
import { importAnswered } from "../../src/questionnaire/import.ts";
import { sheetXml, workbook } from "../support/hand_xlsx.ts";

Deno.test("[questionnaire] an answered SIG-like workbook becomes answers with every phrasing and id", async () => {
  const book = workbook([
    ["Instructions", sheetXml([["Instructions"], ["Answer every question on the SIG sheet."]])],
    [
      "SIG Lite",
      sheetXml([
        ["Ques Num", "Question", "Response", "Additional Information"],
        [null, "A. Risk Management", null, null],
        ["A.1", "Is there a risk assessment program?", "Yes", "Reviewed every year by the CISO."],
        ["A.2", "Describe how risks are treated", "Accepted, mitigated or transferred.", null],
        [null, "B. Access Control", null, null],
        ["B.1", "Is MFA required for administrators?", "Yes", "Hardware keys for every admin."],
        ["B.1", "Is multi-factor authentication enforced for administrators?", "Yes", null],
        ["B.2", "Is there a risk assessment program?", "Yes", "Reviewed every year by the CISO."],
        ["B.3", "Are access reviews performed?", null, null],
        ["B.4", "Do you review privileged access quarterly?", "No", null],
      ]),
    ],
  ]);
  const imported = await importAnswered(book);
  assert.equal(imported.unanswered, 1);
  assert.deepEqual(
    imported.answers.map((a) => [
      a.question,
      a.answer,
      a.category,
      a.phrasings.map((p) => [p.id, p.row]),
    ]),
    [
      [
        "Is there a risk assessment program?",
        "Yes. Reviewed every year by the CISO.",
        "A. Risk Management",
        [["A.1", 3], ["B.2", 8]],
      ],
      [
        "Describe how risks are treated",
        "Accepted, mitigated or transferred.",
        "A. Risk Management",
        [["A.2", 4]],
      ],
      [
        "Is MFA required for administrators?",
        "Yes. Hardware keys for every admin.",
        "B. Access Control",
        [["B.1", 6], ["B.1", 7]],
      ],
      ["Do you review privileged access quarterly?", "No", "B. Access Control", [["B.4", 10]]],
    ],
  );
});

Deno.test("[questionnaire] an answered CSV: answers with the same text merge, a bare Yes does not", async () => {
  const csv = strToU8(
    "Question,Answer\n" +
      "Do you encrypt backups?,Yes\n" +
      "Do you have a DPO?,Yes\n" +
      "Where is data stored?,In the EU (Frankfurt and Dublin regions).\n" +
      "Which regions hold customer data?,In the EU (Frankfurt and Dublin regions).\n",
  );
  const imported = await importAnswered(csv);
  assert.deepEqual(imported.answers.map((a) => [a.question, a.phrasings.length, a.category]), [
    ["Do you encrypt backups?", 1, "CSV"],
    ["Do you have a DPO?", 1, "CSV"],
    ["Where is data stored?", 2, "CSV"],
  ]);
});
