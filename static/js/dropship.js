// The tracker pushed to every player is rendered once for all of them: each figure's controls
// come inside <template data-played-by="<user ids>"> and what the others see of it inside
// <template data-not-played-by="<user ids>">. seat() puts in place the parts meant for this
// device's user (data-me on the room's stream element) and drops the rest; cards marked
// data-played-by-card are then ordered as the server orders them for one user: this user's own
// first, the rest folded into the [data-fold-others] details that follows them. The server
// still refuses a player's action on a figure they do not play: this is only what the page shows.
// A finger (or a mouse button) down on the tracker: its pending release timer, else null. While
// it is down, nothing swaps the tracker under it (the pushes and the catch-up below wait).
const press = { timer: null };

function seat(root) {
  const stream = document.querySelector("[data-room-stream]");
  if (!root || !root.querySelectorAll || !stream) return;
  const me = stream.dataset.me || "";
  const named = (elt, attribute) => me !== "" && (elt.getAttribute(attribute) || "").split(/\s+/).includes(me);
  for (const tpl of root.querySelectorAll("template[data-played-by], template[data-not-played-by]")) {
    const keep = tpl.hasAttribute("data-played-by") ? named(tpl, "data-played-by") : !named(tpl, "data-not-played-by");
    if (!keep) {
      tpl.remove();
      continue;
    }
    const nodes = Array.from(tpl.content.childNodes);
    tpl.replaceWith(tpl.content);
    for (const node of nodes) if (node.nodeType === Node.ELEMENT_NODE && window.htmx) htmx.process(node);
  }
  for (const fold of root.querySelectorAll("details[data-fold-others]")) {
    const cards = Array.from(fold.parentElement.querySelectorAll(":scope > [data-played-by-card]"));
    const own = cards.filter((card) => named(card, "data-played-by-card"));
    const others = cards.filter((card) => !own.includes(card));
    if (own.length === 0 || others.length === 0) {
      fold.remove();
      continue;
    }
    for (const card of own) fold.parentElement.insertBefore(card, cards[0]);
    for (const card of others) fold.appendChild(card);
    fold.parentElement.insertBefore(fold, own[own.length - 1].nextSibling);
    const count = fold.querySelector("[data-fold-count]");
    if (count) count.textContent = String(others.length);
    fold.removeAttribute("data-fold-others");
    fold.hidden = false;
  }
}

// Keep what someone is typing when another device's change refreshes the tracker.
//
// A live refresh swaps #tracker. Just before, remember every edited input inside it (keyed by
// its id, or by its form's id and its name, plus the value for check boxes and radio buttons);
// just after, put the values back into the new inputs with the same key. A swap caused by your
// own form submit is not restored, so typed dice are not reused by the next roll.
//
// Folds (<details>) the player opened or closed by hand stay as they were left across every swap
// of the tracker, their own submits included: the owner's tools do not fold shut when another
// device acts. A fold is known by its own id or data-testid (or its summary's), else by its
// summary's words (numbers aside, so "The rest of the crew (3)" is still itself at 4) within the
// nearest part around it with an id or data-testid, and by its place among folds so named.
(() => {
  let kept = null;
  let folds = null;

  document.addEventListener(
    "click",
    (event) => {
      const summary = event.target && event.target.closest && event.target.closest("summary");
      if (summary && summary.parentElement && summary.parentElement.tagName === "DETAILS") {
        summary.parentElement.dataset.foldedByHand = "1";
      }
    },
    true,
  );

  function foldsOf(root) {
    const seen = new Map();
    const found = [];
    for (const fold of root.querySelectorAll("details")) {
      const summary = fold.querySelector(":scope > summary");
      let name = fold.id || fold.dataset.testid || (summary && (summary.id || summary.dataset.testid)) || "";
      if (!name) {
        // no name of its own: its words (numbers aside), within the nearest named part around it
        const scope = fold.parentElement && fold.parentElement.closest("[id], [data-testid]");
        const words = summary ? summary.textContent.replace(/\d+/g, "#").replace(/\s+/g, " ").trim() : "";
        name = `${scope ? scope.id || scope.dataset.testid : ""}|${words}`;
      }
      const place = (seen.get(name) || 0) + 1;
      seen.set(name, place);
      found.push([`${name}|${place}`, fold]);
    }
    return found;
  }

  function rememberFolds(target) {
    folds = new Map();
    for (const [key, fold] of foldsOf(target)) if (fold.dataset.foldedByHand) folds.set(key, fold.open);
  }

  function restoreFolds(tracker) {
    if (!folds || folds.size === 0) return;
    for (const [key, fold] of foldsOf(tracker)) {
      if (!folds.has(key)) continue;
      fold.open = folds.get(key);
      fold.dataset.foldedByHand = "1";
    }
    folds = null;
  }

  function keyOf(input) {
    const form = input.form || input.closest("form");
    let key = input.id || (form && form.id && input.name ? `${form.id}:${input.name}` : "");
    if (key && (input.type === "checkbox" || input.type === "radio")) key += `=${input.value}`;
    return key;
  }

  function edited(input) {
    if (input.type === "hidden") return false;
    if (input.type === "checkbox" || input.type === "radio") return input.checked !== input.defaultChecked;
    if (input.tagName === "SELECT") return Array.from(input.options).some((o) => o.selected !== o.defaultSelected);
    return input.value !== input.defaultValue;
  }

  function remember(target) {
    rememberFolds(target);
    kept = new Map();
    const fields = Array.from(target.querySelectorAll("input, select, textarea"));
    // Inputs outside the tracker that belong to a form inside it (form="...") are not swapped.
    for (const field of fields) {
      const key = keyOf(field);
      if (key && edited(field)) kept.set(key, field.type === "checkbox" || field.type === "radio" ? field.checked : field.value);
    }
  }

  document.addEventListener("htmx:beforeSwap", (event) => {
    kept = null;
    folds = null;
    const target = event.detail.target;
    // A refetched tracker (a GET) older than the one shown arrived late, after this device's own
    // change answered: drawing it would bring back an older version (and its forms would be
    // refused as stale).
    const config = event.detail.requestConfig;
    if (target && target.id === "tracker" && config && config.verb === "get") {
      const incoming = stampOf(event.detail.serverResponse || "").version;
      if (incoming < Number(target.dataset.version)) {
        event.detail.shouldSwap = false;
        return;
      }
    }
    const source = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!target || target.id !== "tracker") return;
    if (source && source.closest && source.closest("form")) {
      rememberFolds(target); // your own submit: the folds stay as you left them, typed dice do not
      return;
    }
    remember(target);
  });

  // A tracker pushed on the event stream (the hidden [data-tracker-push] receiver swaps it). One
  // older than the tracker shown, or the same version with the same members (this device's own
  // answer already showed it), is dropped: swapping it would only detach the form of a request
  // still in flight.
  function stampOf(html) {
    const version = /data-version="(\d+)"/.exec(html);
    const members = /[?&](?:amp;)?members=([\d.]+)/.exec(html);
    return { version: version ? Number(version[1]) : NaN, members: members ? members[1] : "" };
  }

  function newer(html, tracker) {
    const pushed = stampOf(html);
    const shown = stampOf(`data-version="${tracker.dataset.version}" ${tracker.getAttribute("hx-get") || ""}`);
    return pushed.version > shown.version || (pushed.version === shown.version && pushed.members !== shown.members);
  }

  // While this device's own request for the tracker (or the member list) is on its way, a push
  // waits: swapping it first would detach the request's target, and the answer would land
  // nowhere. The newest push waiting is shown after the answer, if it is still newer.
  const inFlight = new Set();
  let held = null;
  const aimsAtTracker = (detail) => detail.target && (detail.target.id === "tracker" || detail.target.id === "members");
  document.addEventListener("htmx:beforeRequest", (event) => {
    if (aimsAtTracker(event.detail)) inFlight.add(event.detail.xhr);
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    if (inFlight.delete(event.detail.xhr)) showHeld();
  });

  // A finger (or a mouse button) down on the tracker: a push waits until it is lifted, so that
  // the tap lands on the button it began on (swapping the card under the finger would lose the
  // tap). The request the tap makes then holds the push until its answer, as above; a tap that
  // makes none (or a scroll) lets it through at once. A press longer than PRESS_MS lets it go.
  const PRESS_MS = 1500;
  function showHeld() {
    if (press.timer !== null || inFlight.size > 0 || held === null) return;
    const html = held;
    held = null;
    const tracker = document.getElementById("tracker");
    if (!tracker || !newer(html, tracker)) return;
    remember(tracker);
    htmx.swap(tracker, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
  }
  function lift() {
    if (press.timer === null) return;
    window.clearTimeout(press.timer);
    press.timer = null;
    window.setTimeout(showHeld, 0); // after the click the lift ends, and the request it starts
  }
  document.addEventListener(
    "pointerdown",
    (event) => {
      if (!event.target || !event.target.closest || !event.target.closest("#tracker")) return;
      if (press.timer !== null) window.clearTimeout(press.timer);
      press.timer = window.setTimeout(lift, PRESS_MS);
    },
    true,
  );
  document.addEventListener("pointerup", lift, true);
  document.addEventListener("pointercancel", lift, true);

  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    kept = null;
    folds = null;
    if (!event.target || !event.target.matches || !event.target.matches("[data-tracker-push]")) return;
    const tracker = document.getElementById("tracker");
    if (!tracker) return;
    const html = event.detail.data || "";
    const fresh = newer(html, tracker);
    if (!fresh || inFlight.size > 0 || press.timer !== null) {
      if (fresh) held = html;
      event.preventDefault();
      return;
    }
    remember(tracker);
  });

  document.addEventListener("htmx:afterSwap", () => {
    seat(document.getElementById("tracker"));
    // A list swapped in (or seated from a template) can arrive in Chromium with nothing chosen
    // (seen on a tracker pushed from another device: Stress +1 then sent no reason and was
    // refused). Choose what a page load would: the option marked selected, else the first.
    for (const list of document.querySelectorAll("select:not([multiple])")) {
      if (list.selectedIndex !== -1 || list.options.length === 0) continue;
      const marked = Array.from(list.options).findIndex((option) => option.defaultSelected);
      list.selectedIndex = marked === -1 ? 0 : marked;
    }
    const tracker = document.getElementById("tracker");
    if (tracker) restoreFolds(tracker);
    if (!kept || kept.size === 0) return;
    if (!tracker) return;
    for (const field of tracker.querySelectorAll("input, select, textarea")) {
      const key = keyOf(field);
      if (!key || !kept.has(key) || field.disabled) continue;
      if (field.type === "checkbox" || field.type === "radio") field.checked = kept.get(key);
      else field.value = kept.get(key);
    }
    kept = null;
  });
})();

// Behaviour named by data attributes instead of inline handlers (the Content-Security-Policy
// allows scripts from this site only, and htmx may not evaluate attribute code):
//   data-send-version             the request carries the tracker's current version
//   data-reset-on-success         a form is emptied after its request succeeded (2xx)
//   data-clear-on-success="a b"   only the inputs named a and b are emptied after a 2xx
//   data-reload-on-success        the page reloads after a 2xx
//   data-submit-on-change         a select submits its form when changed
//   data-print                    a button prints the page
// A refused request (400, 409) keeps what was typed.
(() => {
  document.addEventListener("htmx:configRequest", (event) => {
    const elt = event.detail.elt;
    const tracker = document.getElementById("tracker");
    if (tracker && elt && elt.closest && elt.closest("[data-send-version]")) event.detail.parameters.version = tracker.dataset.version;
  });
  document.addEventListener("htmx:afterRequest", (event) => {
    const elt = event.detail.elt;
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (!elt || !elt.closest || status < 200 || status >= 300) return;
    if (elt.closest("[data-reload-on-success]")) {
      window.location.reload();
      return;
    }
    const form = elt.closest("form");
    if (!form) return;
    if (form.hasAttribute("data-reset-on-success")) form.reset();
    const names = (form.getAttribute("data-clear-on-success") || "").split(/\s+/).filter(Boolean);
    for (const name of names) for (const input of form.querySelectorAll(`[name="${name}"]`)) input.value = "";
  });
  document.addEventListener("change", (event) => {
    const field = event.target;
    if (field && field.matches && field.matches("[data-submit-on-change]") && field.form) field.form.requestSubmit();
  });
  document.addEventListener("click", (event) => {
    if (event.target && event.target.closest && event.target.closest("[data-print]")) window.print();
  });
})();

// The Played-by choices of a tracker's set-up forms (select[data-played-by]) follow the member
// list (#members, [data-member-id] items) when it is redrawn after a join, a leave or a removal,
// without redrawing the forms themselves (what the owner is typing stays). The first option (the
// referee) and the current choice stay; data-played-by="players" lists players only.
(() => {
  function syncPlayedBy() {
    const members = document.getElementById("members");
    if (!members) return;
    const people = members.querySelectorAll("[data-member-id]");
    for (const select of document.querySelectorAll("select[data-played-by]")) {
      const playersOnly = select.dataset.playedBy === "players";
      const chosen = select.value;
      while (select.options.length > 1) select.remove(1);
      for (const li of people) {
        if (playersOnly && li.dataset.memberRole !== "player") continue;
        select.add(new Option(li.dataset.memberName, li.dataset.memberId));
      }
      select.value = [...select.options].some((o) => o.value === chosen) ? chosen : "";
    }
  }
  document.addEventListener("htmx:oobAfterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "members") syncPlayedBy();
  });
  document.addEventListener("htmx:afterSettle", syncPlayedBy);
})();

// A refused request leaves the page whole: nothing is swapped, and the reason appears beside the
// control that sent it (a form's last line, or just after a lone control), in view.
//   dropship:refused   the server's own words (rules/refusals.py, through HX-Trigger)
//   htmx:responseError any other refusal or server error: the JSON detail or a short text
//   htmx:sendError     no answer at all: the connection is down
(() => {
  const GENERIC = {
    403: "Your role here does not allow this.",
    404: "This is gone, or not yours to see.",
    413: "That is too large to send.",
    429: "Too many tries: wait a moment and try again.",
  };

  // A form submitted by a button outside it (the table bar's phase button, form="...") shows
  // its refusal where that button is.
  const submitters = new WeakMap();
  document.addEventListener("submit", (event) => {
    if (event.submitter) submitters.set(event.target, event.submitter);
  }, true);

  function anchorOf(elt) {
    if (!elt || !elt.closest) return null;
    const form = elt.closest("form");
    const submitter = form && submitters.get(form);
    if (submitter && submitter.isConnected && !form.contains(submitter)) return submitter.closest(".table-bar") || submitter;
    return form || elt;
  }

  function inside(anchor) {
    return anchor.tagName === "FORM" || anchor.classList.contains("table-bar");
  }

  function clear(anchor) {
    const next = inside(anchor) ? anchor.querySelector(":scope > .refusal") : anchor.nextElementSibling;
    if (next && next.classList && next.classList.contains("refusal")) next.remove();
  }

  function show(elt, message) {
    const anchor = anchorOf(elt);
    if (!anchor || !anchor.isConnected) return;
    clear(anchor);
    const note = document.createElement("p");
    note.className = "refusal";
    note.setAttribute("role", "alert");
    note.dataset.testid = "refusal";
    note.textContent = message;
    if (inside(anchor)) anchor.appendChild(note);
    else anchor.insertAdjacentElement("afterend", note);
    note.scrollIntoView({ block: "nearest" });
  }

  function refusedByServer(xhr) {
    const trigger = xhr && xhr.getResponseHeader("HX-Trigger");
    return Boolean(trigger && trigger.includes("dropship:refused"));
  }

  function messageOf(xhr) {
    const type = xhr.getResponseHeader("Content-Type") || "";
    try {
      if (type.startsWith("application/json")) {
        const body = JSON.parse(xhr.responseText);
        if (body && typeof body.detail === "string") return body.detail;
      } else if (type.startsWith("text/plain") && xhr.responseText.length < 300) {
        return xhr.responseText;
      } else if (type.startsWith("text/html")) {
        const alert = new DOMParser().parseFromString(xhr.responseText, "text/html").querySelector("[role=alert]");
        if (alert && alert.textContent.trim()) return alert.textContent.trim();
      }
    } catch (_) {
      // fall through to the generic words
    }
    if (xhr.status >= 500) return "Server error: nothing was saved. Try again.";
    return GENERIC[xhr.status] || `Refused (${xhr.status}).`;
  }

  document.addEventListener("dropship:refused", (event) => show(event.target, event.detail.message));
  document.addEventListener("htmx:responseError", (event) => {
    const xhr = event.detail.xhr;
    if (!refusedByServer(xhr)) show(event.detail.elt, messageOf(xhr));
  });
  document.addEventListener("htmx:sendError", (event) => {
    show(event.detail.elt, "No answer from the server: check the connection; nothing was sent.");
  });
  // A later success from the same form takes its old refusal away.
  document.addEventListener("htmx:afterRequest", (event) => {
    const status = event.detail.xhr ? event.detail.xhr.status : 0;
    const anchor = anchorOf(event.detail.elt);
    if (anchor && anchor.isConnected && status >= 200 && status < 300) clear(anchor);
  });
})();

// The table bar's phase button submits the tracker's own phase form (id="next-phase") and
// reads as that form's button does; hidden when the tracker has none (or it is not yours).
(() => {
  function syncPhaseButton() {
    const button = document.querySelector("[data-phase-button]");
    if (!button) return;
    const form = document.getElementById("next-phase");
    const own = form && form.querySelector("button[type=submit], button:not([type])");
    button.hidden = !own;
    if (own) button.textContent = own.textContent.trim();
  }
  document.addEventListener("DOMContentLoaded", syncPhaseButton);
  document.addEventListener("htmx:afterSettle", syncPhaseButton);
})();

// The room's event stream pushes this device's tracker; the device asks for it itself only when
// its stream opens (once: it may have missed a change while away), while the stream is down
// (every POLL_MS), and when a push went missing: the stream also carries the room's stored
// "version" and "members" events (never lost: the server re-reads them when it drops a stream's
// queue), and if the tracker shown has not caught up with one within CATCH_UP_MS (plus a little
// jitter, so that many phones do not ask at once), the device asks. A "reload" event means this
// device's view is gone (its role changed, or it left the table): the page is loaded again.
// Pushed HTML is rendered once for every device of a role, so it carries no CSRF token and no
// per-device parts: plain forms get the page's token here, [data-only-for="<user id>"]
// elements stay only on that user's device (data-me on the stream's element), and the players'
// figure controls are seated by seat() above.
(() => {
  const POLL_MS = 5000;
  const CATCH_UP_MS = 2500;
  let poll = null;
  let catchUp = null;
  let wanted = { version: 0, members: "" };
  const heard = new WeakSet();

  function refresh() {
    if (press.timer !== null) {
      window.setTimeout(refresh, 300); // not under a finger on the tracker (see press)
      return;
    }
    const tracker = document.getElementById("tracker");
    if (tracker && tracker.hasAttribute("hx-get")) htmx.trigger(tracker, "dropship:refresh");
  }

  // What the tracker shown is: its version, and the members' stamp in its own URL.
  function shown() {
    const tracker = document.getElementById("tracker");
    if (!tracker) return null;
    const members = /[?&]members=([\d.]+)/.exec(tracker.getAttribute("hx-get") || "");
    return { version: Number(tracker.dataset.version), members: members ? members[1] : "" };
  }

  function behind() {
    const now = shown();
    return now !== null && (wanted.version > now.version || (wanted.members !== "" && wanted.members !== now.members));
  }

  // A stored room event: the push of the tracker it announces should follow at once.
  function announced(event) {
    let data = {};
    try {
      data = JSON.parse(event.data || "{}");
    } catch (_) {
      return;
    }
    if (typeof data.version === "number" && data.version > wanted.version) wanted.version = data.version;
    if (typeof data.members === "string") wanted.members = data.members;
    if (!behind() || catchUp) return;
    catchUp = window.setTimeout(() => {
      catchUp = null;
      if (behind()) refresh();
    }, CATCH_UP_MS + Math.random() * 1000);
  }

  document.addEventListener("htmx:sseOpen", (event) => {
    if (!event.target || !event.target.matches || !event.target.matches("[data-room-stream]")) return;
    if (poll) window.clearInterval(poll);
    poll = null;
    const source = event.detail && event.detail.source;
    if (source && !heard.has(source)) {
      heard.add(source);
      source.addEventListener("reload", () => window.location.reload());
      source.addEventListener("version", announced);
      source.addEventListener("members", announced);
    }
    refresh();
  });
  document.addEventListener("htmx:sseError", (event) => {
    if (!event.target || !event.target.matches || !event.target.matches("[data-room-stream]")) return;
    if (!poll) poll = window.setInterval(refresh, POLL_MS);
  });

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (_) {
      return "";
    }
  }

  function adopt() {
    const stream = document.querySelector("[data-room-stream]");
    if (!stream) return;
    const me = stream.dataset.me || "";
    seat(document);
    for (const elt of document.querySelectorAll("[data-only-for]")) {
      if (elt.dataset.onlyFor === me) {
        elt.removeAttribute("data-only-for");
        elt.hidden = false;
      } else {
        elt.remove();
      }
    }
    const token = csrfToken();
    if (!token) return;
    for (const form of stream.ownerDocument.querySelectorAll("form[method=post]")) {
      if (form.querySelector("input[name=csrfmiddlewaretoken]")) continue;
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "csrfmiddlewaretoken";
      input.value = token;
      form.prepend(input);
    }
  }
  document.addEventListener("htmx:afterSettle", adopt);
  document.addEventListener("htmx:oobAfterSwap", adopt);
})();
