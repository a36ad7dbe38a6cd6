// pbm: a seat's replay page, better with JavaScript. The page works without this file (every way
// out of a step is a plain link, the jump a GET form); with it, those links are followed in place
// (the step is fetched and swapped in, the address bar and the back button kept right), and the
// arrow keys step back and on, Home and End go to the first and the last step.
"use strict";
(function () {
  const live = () => document.getElementById("live");
  const KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

  // The story's list scrolls by itself (not the page) to the step's line.
  function showLine() {
    const list = live().querySelector(".history ol.lines");
    const now = list && list.querySelector("li.now");
    if (now) list.scrollTop = now.offsetTop - list.offsetTop - list.clientHeight / 2;
  }

  async function go(url, push) {
    let answer = null;
    try {
      answer = await fetch(url, { cache: "no-store", headers: { Accept: "text/html" } });
    } catch (failure) {
      answer = null;
    }
    // A refusal (a bad step) or a lost connection: the browser goes there itself, as without this file.
    if (!answer || !answer.ok) return location.assign(url);
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    const next = fresh.getElementById("live");
    if (!next) return location.assign(url);
    const open = Array.from(live().querySelectorAll("details[open]"), (d) => d.className);
    live().replaceWith(next);
    for (const name of open) next.querySelectorAll("details." + name).forEach((d) => (d.open = true));
    document.title = fresh.title;
    if (push) history.pushState(null, "", url);
    showLine();
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest("#live a[data-way], #live .history a, #live nav.as a");
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    go(link.href, true);
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches("form.jump")) return;
    event.preventDefault();
    const url = new URL(form.action, location.href);
    url.search = new URLSearchParams(new FormData(form)).toString();
    go(url.href, true);
  });

  document.addEventListener("keydown", (event) => {
    const way = KEYS[event.key];
    if (!way || event.altKey || event.ctrlKey || event.metaKey || event.target.closest("input, textarea, select, button")) return;
    const link = live().querySelector('a[data-way="' + way + '"]');
    if (!link) return;
    event.preventDefault();
    go(link.href, true);
  });

  window.addEventListener("popstate", () => go(location.href, false));
  showLine();
})();
