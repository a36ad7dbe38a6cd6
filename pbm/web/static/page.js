// pbm: the seat's page, better with JavaScript. The page works without this file (its forms post
// and the server redirects back); with it, moves are posted by fetch, a refusal is shown beside the
// form that sent it, and the table is redrawn in place when anyone moves (server-sent events), so a
// player reading the story never loses their place.
"use strict";
(function () {
  const live = () => document.getElementById("live");
  let seq = Number(live().dataset.seq);
  let waiting = null; // a redraw held back while the player is choosing in a form
  let posting = false; // a move is on its way to the server

  function freshKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function choosing() {
    const form = document.activeElement && document.activeElement.closest("form.compose, form.vacation, form.orders-add");
    return form !== null && form.querySelector("input:checked, input[type=number]:not(:placeholder-shown), input[type=text]:not(:placeholder-shown)") !== null;
  }

  // One redraw at a time; a request for another while one runs is served once it ends.
  let drawing = null;
  let again = false;
  let stepped = false; // a step towards a move was taken: draw it even though the log has not grown
  function redraw(notice) {
    if (drawing) {
      again = true;
      return drawing;
    }
    const force = stepped;
    stepped = false;
    drawing = fetchAndSwap(notice, force).finally(() => {
      drawing = null;
      if (again) {
        again = false;
        redraw();
      }
    });
    return drawing;
  }

  // The page as it stands: its path and the steps towards a move chosen so far (?card=18), not
  // the note a redirect named (read once, and gone).
  function here() {
    const query = new URLSearchParams(location.search);
    query.delete("note");
    return location.pathname + (query.toString() ? "?" + query : "");
  }

  async function fetchAndSwap(notice, force) {
    const answer = await fetch(here(), { cache: "no-store", headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    const next = fresh.getElementById("live");
    if (!next || (!notice && !force && next.dataset.seq === live().dataset.seq)) return; // nothing new to draw
    const open = Array.from(live().querySelectorAll("details[open]"), (d) => d.className);
    localTimes(next);
    live().replaceWith(next);
    for (const name of open) next.querySelectorAll("details." + name).forEach((d) => (d.open = true));
    document.title = fresh.title;
    seq = Number(next.dataset.seq);
    if (notice) show(next.querySelector("main"), "notice", notice, true);
  }

  // A time the server drew in UTC (pbm/times.py, templates/times.html), its clock face redrawn in
  // the browser's time zone; the relative part ("in 2 days") is the same everywhere, and the exact
  // UTC time stays in the element's title.
  function localTimes(root) {
    root.querySelectorAll("time[datetime][data-form] .face").forEach((face) => {
      const time = face.closest("time");
      const when = new Date(time.dateTime);
      if (isNaN(when)) return;
      const weekday = time.dataset.form === "weekday";
      const part = {};
      new Intl.DateTimeFormat("en-GB", {
        weekday: weekday ? "long" : "short", day: "numeric", month: "short", year: "numeric",
        hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short",
      }).formatToParts(when).forEach((p) => (part[p.type] = p.value));
      const day = weekday ? part.weekday : `${part.weekday} ${part.day} ${part.month} ${part.year}`;
      face.textContent = `${day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
    });
  }

  function show(where, kind, text, first) {
    const old = where.querySelector(":scope > ." + kind + "[data-js]");
    if (old) old.remove();
    const note = document.createElement("p");
    note.className = kind;
    note.dataset.js = "1";
    note.setAttribute("role", "alert");
    note.textContent = text;
    if (first) where.prepend(note);
    else where.append(note);
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form.move")) return;
    event.preventDefault();
    const data = new FormData(form, event.submitter);
    data.set("idempotency_key", freshKey());
    post(form, data);
  });

  async function post(form, data) {
    const buttons = (on) => form.querySelectorAll("button").forEach((b) => (b.disabled = !on));
    buttons(false);
    let answer;
    posting = true;
    try {
      answer = await fetch(form.action, {
        method: "POST",
        body: new URLSearchParams(data),
        headers: { Accept: "application/json" },
      });
    } catch (failure) {
      posting = false;
      buttons(true);
      show(form, "refusal", "Could not reach the server: try again.");
      return;
    }
    const body = await answer.json().catch(() => ({}));
    posting = false;
    if (answer.ok && body.confirm) return ask(form, data, body.question, buttons); // the seat confirms its moves
    if (answer.ok || answer.status === 409) history.replaceState(null, "", location.pathname); // the steps start again
    if (answer.ok) return redraw(body.notice); // "You played 7Su.": the seat's own move, confirmed
    if (answer.status === 409) return redraw(body.error || "Someone moved first: here is the table now.");
    buttons(true);
    show(form, "refusal", "Not played: " + (body.error || "the server said " + answer.status));
  }

  // "Send 7Su?" for a seat that asked to confirm its moves (its setting): Send posts the same
  // form again, confirmed; Change leaves the move unsent and the form as it was.
  function ask(form, data, question, buttons) {
    const where = form.closest("section.moves") || live().querySelector("section.moves") || form.parentElement; // a card's form is in the hand
    const old = where.querySelector(":scope > .confirm[data-js]");
    if (old) old.remove();
    const box = document.createElement("div");
    box.className = "confirm";
    box.dataset.js = "1";
    box.setAttribute("role", "alertdialog");
    const text = document.createElement("p");
    text.textContent = question;
    const send = document.createElement("button");
    send.type = "button";
    send.textContent = "Send";
    const change = document.createElement("button");
    change.type = "button";
    change.className = "quiet";
    change.textContent = "Change";
    send.addEventListener("click", () => {
      box.remove();
      data.set("confirmed", "1");
      post(form, data);
    });
    change.addEventListener("click", () => {
      box.remove();
      buttons(true);
    });
    box.append(text, send, change);
    where.append(box);
    send.focus();
  }

  // A step towards a move is a link carrying the choices so far (?card=18&cell=c2): drawn in
  // place, and the address keeps it, so a reload or a live redraw stays on that step. The link's
  // attribute, not its href: an SVG link's (a city on a map) is an object, not the address.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a.step") : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    history.replaceState(null, "", new URL(link.getAttribute("href"), location.href).href);
    stepped = true;
    redraw();
  });

  let source = null;
  function listen() {
    if (source) return;
    source = new EventSource(live().dataset.events);
    source.addEventListener("seq", (event) => {
      if (Number(event.data) <= seq || posting) return; // a move being posted redraws when answered
      if (choosing()) {
        waiting = Number(event.data);
        return;
      }
      redraw();
    });
  }
  document.addEventListener("focusout", () => {
    if (waiting !== null && !choosing()) {
      waiting = null;
      redraw();
    }
  });
  // The deal waits for this seat's salt: made here, where the server cannot see it before it is
  // sent, and sent once (the server refuses a second one).
  const salt = document.querySelector("form.salt input[name=salt]");
  if (salt && !salt.value && !document.querySelector("form.salt .refusal, section.salt .refusal")) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    salt.value = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    salt.form.requestSubmit();
  }
  localTimes(document);
  listen();
})();
