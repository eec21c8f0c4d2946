// The buyer's self-service page (src/publish/render/buyer_page.ts): every call is one of the
// documented buyer routes with the session token, kept in this tab's session storage only.
"use strict";

const main = document.getElementById("main");
const slug = main.dataset.slug;
const base = `/public/trust/${encodeURIComponent(slug)}`;
const KEY = `buyer-session:${slug}`;
const $ = (id) => document.getElementById(id);

function say(text) {
  $("status").textContent = text;
}

async function call(method, path, body) {
  const headers = { accept: "application/json" };
  const token = sessionStorage.getItem(KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.blob();
  if (!res.ok) {
    if (res.status === 401 && path !== "/buyer/sessions") signOut();
    throw new Error(data && data.error ? data.error.message : `Failed (${res.status})`);
  }
  return data;
}

function item(list, parts, button) {
  const li = document.createElement("li");
  const what = document.createElement("span");
  what.className = "what";
  parts.forEach((part, i) => {
    if (i > 0) what.append(document.createElement("br"));
    const span = document.createElement("span");
    if (typeof part === "string") span.textContent = part;
    else {
      span.textContent = part.text;
      span.className = part.className;
    }
    what.append(span);
  });
  li.append(what);
  if (button) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = button.label;
    b.setAttribute("aria-label", button.name);
    b.addEventListener("click", button.onClick);
    li.append(b);
  }
  list.append(li);
}

const day = (iso) => iso.slice(0, 10);

async function download(doc) {
  try {
    const blob = await call("GET", `/buyer/documents/${doc.id}`);
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = doc.title;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(`Downloaded "${doc.title}".`);
  } catch (error) {
    say(error.message);
  }
}

async function showDocuments() {
  const { documents } = await call("GET", "/buyer/documents");
  const list = $("documents");
  list.replaceChildren();
  if (documents.length === 0) {
    item(list, ["Nothing yet: ask for documents below."]);
  }
  for (const doc of documents) {
    item(list, [doc.title, { text: `Until ${day(doc.expiresAt)}`, className: "kind" }], {
      label: "Download",
      name: `Download ${doc.title}`,
      onClick: () => download(doc),
    });
  }
}

async function showAskForm() {
  const res = await fetch(`${base}/documents`, { headers: { accept: "application/json" } });
  const list = await res.json();
  const fieldset = $("ask-documents");
  fieldset.querySelectorAll("label").forEach((l) => l.remove());
  for (const doc of list.documents.filter((d) => d.visibility === "restricted")) {
    const label = document.createElement("label");
    label.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = "documentIds";
    box.value = doc.id;
    label.append(box, ` ${doc.title}`);
    fieldset.append(label);
  }
  $("nda").textContent = list.nda ? list.nda.text : "No NDA is set: requests are not open yet.";
  $("ask-form").dataset.nda = list.nda ? String(list.nda.version) : "";
}

async function showAdmin() {
  const { members } = await call("GET", "/buyer/members");
  const people = $("people");
  people.replaceChildren();
  const me = sessionStorage.getItem(`${KEY}:email`);
  for (const m of members) {
    const can = m.canRead.map((g) => `${g.title} (until ${day(g.expiresAt)})`).join(", ");
    item(
      people,
      [`${m.email} · ${m.role}`, { text: `Can read: ${can || "nothing yet"}`, className: "kind" }],
      m.email === me ? null : {
        label: "Remove",
        name: `Remove ${m.email}`,
        onClick: async () => {
          await call("DELETE", `/buyer/members/${encodeURIComponent(m.email)}`).catch((e) =>
            say(e.message)
          );
          say(`${m.email} was removed.`);
          await showAdmin();
        },
      },
    );
  }
  const { tokens } = await call("GET", "/buyer/tokens");
  const list = $("tokens");
  list.replaceChildren();
  for (const t of tokens) {
    const state = t.revokedAt ? "revoked" : `until ${day(t.expiresAt)}`;
    const scope = t.documentIds ? `${t.documentIds.length} document(s)` : "all granted documents";
    item(
      list,
      [t.name, { text: `${scope} · ${state}`, className: "kind" }],
      t.revokedAt ? null : {
        label: "Revoke",
        name: `Revoke ${t.name}`,
        onClick: async () => {
          await call("DELETE", `/buyer/tokens/${t.id}`).catch((e) => say(e.message));
          say(`The token "${t.name}" was revoked.`);
          await showAdmin();
        },
      },
    );
  }
}

async function showSummary() {
  const summary = await call("GET", "/buyer/summary");
  const body = $("summary");
  body.replaceChildren();
  for (const r of summary.rows) {
    const tr = document.createElement("tr");
    for (const cell of [r.month, r.person, r.title, String(r.views), String(r.downloads)]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    body.append(tr);
  }
}

async function showSignedIn() {
  const me = await call("GET", "/buyer/me");
  sessionStorage.setItem(`${KEY}:email`, me.member ? me.member.email : "");
  $("sign-in").hidden = true;
  $("signed-in").hidden = false;
  $("who").textContent = `${me.member.email}, ${me.member.role} of ${me.buyerOrganization.domain}`;
  $("admin").hidden = me.member.role !== "admin";
  await showDocuments();
  await showAskForm();
  if (me.member.role === "admin") await showAdmin();
  await showSummary();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  $("signed-in").hidden = true;
  $("sign-in").hidden = false;
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const { message } = await call("POST", "/buyer/sign-in", { email: $("email").value });
    say(message);
  } catch (error) {
    say(error.message);
  }
});

$("sign-out").addEventListener("click", () => {
  signOut();
  say("Signed out.");
});

$("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const ids = [...document.querySelectorAll("input[name=documentIds]:checked")].map((b) => b.value);
  if (ids.length === 0) return say("Choose at least one document.");
  try {
    const { decisions } = await call("POST", "/buyer/access", {
      documentIds: ids,
      ndaVersion: Number($("ask-form").dataset.nda),
      acceptNda: true,
    });
    const list = $("decisions");
    list.replaceChildren();
    for (const d of decisions) {
      item(list, [
        { text: `${d.title}: ${d.outcome}`, className: d.outcome },
        d.explanation,
      ]);
    }
    say("Your request was decided; see each document below the form.");
    await showDocuments();
    if (!$("admin").hidden) await showAdmin();
  } catch (error) {
    say(error.message);
  }
});

$("add-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const member = await call("POST", "/buyer/members", { email: $("colleague").value });
    say(`${member.email} was added; they can sign in with their email now.`);
    $("colleague").value = "";
    await showAdmin();
  } catch (error) {
    say(error.message);
  }
});

$("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const created = await call("POST", "/buyer/tokens", {
      name: $("token-name").value,
      expiresInDays: Number($("token-days").value),
    });
    const secret = $("secret");
    secret.hidden = false;
    secret.textContent = `Copy it now, it is shown once: ${created.secret}`;
    say(`The token "${created.token.name}" was created.`);
    await showAdmin();
  } catch (error) {
    say(error.message);
  }
});

async function start() {
  const match = location.hash.match(/^#sign-in=([A-Za-z0-9_-]{43})$/);
  if (match) {
    history.replaceState(null, "", location.pathname);
    try {
      const session = await call("POST", "/buyer/sessions", { token: match[1] });
      sessionStorage.setItem(KEY, session.sessionToken);
      say(
        session.created
          ? `Welcome: you founded ${session.buyerOrganization.domain}'s buyer organization.`
          : "You are signed in.",
      );
    } catch (error) {
      say(error.message);
      return;
    }
  }
  if (sessionStorage.getItem(KEY)) {
    await showSignedIn().catch((error) => say(error.message));
  }
}

start();
