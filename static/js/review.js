/* Review screen keyboard shortcuts and small conveniences.
 *
 * j / k  move between fix cards      a  accept      r  reject (focus the reason)
 * e      edit the replacement        u  undo        ?  toggle the help overlay
 * w      write your own fix (on the selected text, else the current fix's finding)
 * Esc    close the open panel or the help
 *
 * Everything here is optional: without JavaScript every action is a plain form.
 */
(function () {
  "use strict";

  var currentId = null;
  var bulkThreshold = null;

  /* A panel opened with the mouse scrolls above the sticky footer too. */
  document.addEventListener("toggle", function (event) {
    var panel = event.target;
    // "Write a fix" opened with the mouse takes the text last selected in the report.
    if (panel && panel.id === "own-fix" && panel.open && lastSelection) {
      var find = panel.querySelector('[name="find"]');
      if (find && !find.value) openOwnFix(lastSelection);
    }
    if (panel && panel.open && panel.classList && panel.classList.contains("fix-panel")) {
      panel.scrollIntoView({ block: "nearest" });
    }
  }, true);

  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll(".fix-card"));
  }

  /* A card's review status lives on its review part, which accept, reject and undo swap. */
  function statusOf(card) {
    var review = card.querySelector(".fix-review");
    return review ? review.dataset.status : "";
  }

  function currentCard() {
    if (currentId) {
      var card = document.getElementById(currentId);
      if (card) return card;
    }
    return null;
  }

  function setCurrent(card, focus) {
    cards().forEach(function (c) { c.classList.remove("is-current"); });
    if (!card) { currentId = null; return; }
    currentId = card.id;
    card.classList.add("is-current");
    if (focus) {
      card.focus({ preventScroll: true });
      card.scrollIntoView({ block: "nearest" });
    }
  }

  function move(step) {
    var list = cards();
    if (!list.length) return;
    var index = list.indexOf(currentCard());
    var next = index < 0 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, index + step));
    setCurrent(list[next], true);
  }

  function ensureCurrent() {
    var card = currentCard();
    if (!card) {
      var list = cards();
      card = list.filter(function (c) { return statusOf(c) === "proposed"; })[0] || list[0];
      if (card) setCurrent(card, true);
    }
    return card;
  }

  function openPanel(card, action) {
    var panel = card.querySelector('details[data-action="' + action + '"]');
    if (!panel) return false;
    panel.open = true;
    var field = panel.querySelector("textarea, input:not([type=hidden])");
    if (field) {
      field.focus({ preventScroll: true });
      if (action === "edit" && field.select) field.select();
    }
    // Above the sticky footer (its scroll-margin leaves room for it).
    panel.scrollIntoView({ block: "nearest" });
    return true;
  }

  function clickAction(card, action) {
    var button = card.querySelector('button[data-action="' + action + '"]');
    if (button && !button.disabled) {
      button.click();
      return true;
    }
    return false;
  }

  function help() { return document.getElementById("shortcut-help"); }

  function toggleHelp(show) {
    var overlay = help();
    if (!overlay) return;
    var visible = typeof show === "boolean" ? show : overlay.hidden;
    overlay.hidden = !visible;
    if (visible) {
      var close = overlay.querySelector("button");
      if (close) close.focus();
    } else if (currentCard()) {
      currentCard().focus({ preventScroll: true });
    }
  }

  function isTyping(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || target.isContentEditable;
  }

  /* A reviewer's own fix (w): on the text selected in the report -- its block carries the
     Markdown source offsets it was rendered from, which the server maps the selection back
     through -- else on the current fix's finding, or the finding in focus. */
  var lastSelection = null;

  document.addEventListener("selectionchange", function () {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return;
    var range = selection.getRangeAt(0);
    var report = document.querySelector(".report-body");
    if (!report || !report.contains(range.commonAncestorContainer)) return;
    var node = range.commonAncestorContainer;
    var block = (node.nodeType === 1 ? node : node.parentElement).closest("[data-src-start]");
    if (!block || !report.contains(block)) return;
    var before = document.createRange();
    before.setStart(block, 0);
    before.setEnd(range.startContainer, range.startOffset);
    lastSelection = {
      text: selection.toString(),
      start: block.dataset.srcStart,
      end: block.dataset.srcEnd,
      revision: report.dataset.revision || "",
      at: before.toString().replace(/\s+/g, " ").length
    };
  });

  function ownFixField(form, name) { return form.querySelector('[name="' + name + '"]'); }

  function openOwnFix(source) {
    var panel = document.getElementById("own-fix");
    if (!panel) return false;
    var form = panel.querySelector("form");
    ["finding", "revision", "src_start", "src_end", "sel_at"].forEach(function (name) {
      ownFixField(form, name).value = "";
    });
    var about = panel.querySelector("[data-own-fix-about]");
    if (source && source.finding) {
      ownFixField(form, "finding").value = source.finding;
      ownFixField(form, "find").value = source.text || "";
      if (about) about.textContent = "On finding " + source.finding + ": the text it marks, widened until it occurs once.";
    } else if (source && source.text) {
      ownFixField(form, "find").value = source.text;
      ownFixField(form, "revision").value = source.revision;
      ownFixField(form, "src_start").value = source.start;
      ownFixField(form, "src_end").value = source.end;
      ownFixField(form, "sel_at").value = source.at;
      if (about) about.textContent = "On the text you selected in the report.";
    }
    panel.open = true;
    var replace = ownFixField(form, "replace");
    if (source && !replace.value) replace.value = ownFixField(form, "find").value;
    replace.focus({ preventScroll: true });
    panel.scrollIntoView({ block: "nearest" });
    return true;
  }

  function findingSource(id) {
    if (!id) return null;
    var button = document.querySelector('[data-own-fix-finding="' + id + '"]');
    return { finding: id, text: button ? button.dataset.text : "" };
  }

  function ownFixSource() {
    var selection = window.getSelection();
    if (lastSelection && selection && !selection.isCollapsed) return lastSelection;
    var focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".finding-item");
    if (focused) {
      var button = focused.querySelector("[data-own-fix-finding]");
      if (button) return findingSource(button.dataset.ownFixFinding);
    }
    var card = currentCard();
    if (card && card.dataset.finding) return findingSource(card.dataset.finding);
    return lastSelection;
  }

  document.addEventListener("input", function (event) {
    // FIND typed by hand is taken as written: the selection and the finding no longer apply.
    if (event.target && event.target.id === "own-find") {
      var form = event.target.form;
      ["finding", "revision", "src_start", "src_end", "sel_at"].forEach(function (name) {
        ownFixField(form, name).value = "";
      });
    }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;

    // Enter sends a reject reason; Ctrl/Cmd+Enter sends any panel form.
    if (event.key === "Enter" && target.tagName && target.tagName.toLowerCase() === "textarea") {
      var form = target.form;
      var send = (event.ctrlKey || event.metaKey) ||
        (target.hasAttribute("data-submit-on-enter") && !event.shiftKey);
      if (form && send) {
        event.preventDefault();
        if (form.requestSubmit) form.requestSubmit(); else form.submit();
      }
      return;
    }
    if (event.key === "Escape") {
      if (help() && !help().hidden) { toggleHelp(false); event.preventDefault(); return; }
      var open = target.closest && target.closest("details[open]");
      if (open) {
        open.open = false;
        var owner = open.closest(".fix-card");
        if (owner) owner.focus({ preventScroll: true });
        else open.querySelector("summary").focus();
        event.preventDefault();
      }
      return;
    }
    if (isTyping(target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!document.querySelector(".review")) return;
    // The help overlay is modal: while it shows, only ? and Esc do anything.
    if (help() && !help().hidden && event.key !== "?") return;

    var handled = true;
    switch (event.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "?": toggleHelp(); break;
      case "a": { var c1 = ensureCurrent(); handled = !!c1 && clickAction(c1, "accept"); break; }
      case "u": { var c2 = ensureCurrent(); handled = !!c2 && clickAction(c2, "undo"); break; }
      case "r": { var c3 = ensureCurrent(); handled = !!c3 && openPanel(c3, "reject"); break; }
      case "e": { var c4 = ensureCurrent(); handled = !!c4 && openPanel(c4, "edit"); break; }
      case "w": handled = openOwnFix(ownFixSource()); break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    var own = event.target.closest && event.target.closest("[data-own-fix-finding]");
    if (own) { openOwnFix(findingSource(own.dataset.ownFixFinding)); return; }
    var toggle = event.target.closest && event.target.closest("[data-toggle-help]");
    if (toggle) { toggleHelp(); return; }
    var overlay = help();
    if (overlay && event.target === overlay) { toggleHelp(false); return; }
    // A click on a highlighted span selects the fix that addresses it.
    var mark = event.target.closest && event.target.closest("mark.finding");
    if (mark) {
      var ids = (mark.dataset.finding || "").split(" ");
      var card = cards().filter(function (c) { return ids.indexOf(c.dataset.finding) >= 0; })[0];
      if (card) setCurrent(card, true);
      return;
    }
    var clicked = event.target.closest && event.target.closest(".fix-card");
    if (clicked) setCurrent(clicked, false);
  });

  // Bulk accept: show how many proposed fixes the threshold in the box would accept.
  function updateBulkCount() {
    var input = document.getElementById("bulk-threshold");
    var counter = document.querySelector("[data-bulk-count]");
    if (!input || !counter) return;
    if (bulkThreshold !== null && input.value !== bulkThreshold) input.value = bulkThreshold;
    var threshold = parseFloat(input.value);
    var count = 0;
    if (!isNaN(threshold)) {
      cards().forEach(function (card) {
        if (statusOf(card) === "proposed" && card.dataset.unverified !== "1" && parseFloat(card.dataset.confidence) >= threshold - 1e-9) count++;
      });
    }
    counter.textContent = String(count);
    var button = document.querySelector("[data-bulk-button]");
    if (button) button.disabled = count === 0 || isNaN(threshold) || threshold < 0 || threshold > 1;
  }

  document.addEventListener("input", function (event) {
    if (event.target && event.target.id === "bulk-threshold") {
      bulkThreshold = event.target.value;
      updateBulkCount();
    }
  });

  // After htmx swaps a card (or the whole region) keep the reviewer's place.
  document.addEventListener("htmx:afterSettle", function () {
    var card = currentCard();
    if (card) {
      card.classList.add("is-current");
      var active = document.activeElement;
      if (!active || active === document.body) card.focus({ preventScroll: true });
    }
    updateBulkCount();
  });

  /* The sticky footer wraps on a narrow screen: the page keeps room for its real height
     (--footer-h, read by the CSS that keeps content and scrolled-to items above it). Set on
     <html> through the CSSOM -- never a style attribute on swapped content (the CSP). */
  var footerObserver = window.ResizeObserver ? new ResizeObserver(function (entries) {
    var height = Math.ceil(entries[0].target.getBoundingClientRect().height);
    if (height > 0) document.documentElement.style.setProperty("--footer-h", height + "px");
  }) : null;
  var observedFooter = null;
  function watchFooter() {
    var footer = document.getElementById("review-footer");
    if (!footerObserver || footer === observedFooter) return;
    if (observedFooter) footerObserver.unobserve(observedFooter);
    observedFooter = footer;
    if (footer) footerObserver.observe(footer);
  }
  document.addEventListener("htmx:afterSettle", watchFooter);

  document.addEventListener("DOMContentLoaded", function () {
    updateBulkCount();
    watchFooter();
  });
})();

/* A proof number shown short: a click shows the exact value (and back). */
document.addEventListener("click", function (event) {
  var button = event.target && event.target.closest ? event.target.closest(".num-exact") : null;
  if (!button) return;
  var exact = button.getAttribute("data-exact");
  if (button.dataset.short === undefined) button.dataset.short = button.textContent;
  button.textContent = button.textContent === exact ? button.dataset.short : exact;
});
