// chainpay checkout page script. Served by the gateway as /pay/assets/checkout.js: no framework,
// no external request. The server renders every piece of markup (gateway/checkout/regions.ts);
// this script only (1) swaps in the regions pushed over server-sent events, (2) posts the network
// choice as JSON, (3) copies values to the clipboard, (4) counts down to expiry.
(function () {
  'use strict';

  var bootElement = document.getElementById('checkout-boot');
  if (!bootElement) return;
  var boot = JSON.parse(bootElement.textContent || '{}');
  var S = boot.strings || {};
  var byId = function (id) {
    return document.getElementById(id);
  };

  var regions = { summary: byId('region-summary'), panel: byId('region-panel'), actions: byId('region-actions') };
  var shown = Object.assign({}, boot.hashes);
  // Counting down only while a payment is asked for (not final, not confirming: time.ts showsCountdown).
  var counting = !!boot.countdown;
  // The countdown runs on the browser's monotonic clock from the gateway's "time left".
  var deadline = performance.now() + boot.remaining_ms;

  // ── Status and regions ────────────────────────────────────────────────────────────────────
  function apply(update, moveFocus) {
    var status = byId('status');
    status.setAttribute('data-status', update.status);
    document.body.setAttribute('data-status', update.status);
    var text = byId('status-text');
    // Only a changed text is written, so the live region announces changes, not every push.
    if (text.textContent !== update.status_text) text.textContent = update.status_text;

    var focusPanel = false;
    Object.keys(regions).forEach(function (name) {
      var element = regions[name];
      if (!element || shown[name] === update.hashes[name]) return;
      var hadFocus = element.contains(document.activeElement);
      element.innerHTML = update.regions[name];
      shown[name] = update.hashes[name];
      revealCopyButtons(element);
      // Focus inside a replaced region would fall back to <body>: move it to the panel heading.
      if (hadFocus || (name === 'panel' && choosing)) focusPanel = true;
    });
    // After a network choice the clicked button is gone (or was disabled while waiting, which
    // drops focus to <body>): move focus to the new panel's heading so the buyer is not lost.
    var lost = !document.activeElement || document.activeElement === document.body;
    if (focusPanel || (moveFocus && lost)) {
      var heading = byId('panel-heading');
      if (heading) heading.focus();
    }

    counting = !!update.countdown;
    deadline = performance.now() + update.remaining_ms;
    byId('countdown-line').hidden = !counting;
    tick();
  }

  // ── Countdown ─────────────────────────────────────────────────────────────────────────────
  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }
  function formatRemaining(ms) {
    var total = Math.ceil(ms / 1000);
    var days = Math.floor(total / 86400);
    var hours = Math.floor((total % 86400) / 3600);
    var clock = pad(Math.floor((total % 3600) / 60)) + ':' + pad(total % 60);
    if (days > 0) return days + ' ' + S.daysShort + ' ' + hours + ':' + clock;
    return hours > 0 ? hours + ':' + clock : clock;
  }
  function tick() {
    if (!counting) return;
    var left = deadline - performance.now();
    var element = byId('countdown');
    var next = left > 0 ? formatRemaining(left) : S.expiring;
    if (element.textContent !== next) element.textContent = next;
  }
  setInterval(tick, 1000);

  // ── Live updates (server-sent events) ─────────────────────────────────────────────────────
  var source = null;
  var retryMs = 2000;
  var lostTimer = null;

  function setLive(ok) {
    var note = byId('live-note');
    clearTimeout(lostTimer);
    if (ok) {
      note.hidden = true;
      return;
    }
    // A short gap (the stream's planned reconnect) is not worth a message.
    lostTimer = setTimeout(function () {
      note.textContent = S.liveLost;
      note.hidden = false;
    }, 5000);
  }

  function connect() {
    if (!('EventSource' in window)) return;
    source = new EventSource(boot.events);
    source.addEventListener('open', function () {
      retryMs = 2000;
      setLive(true);
    });
    source.addEventListener('update', function (event) {
      setLive(true);
      apply(JSON.parse(event.data), false);
    });
    // The daemon closed the invoice: nothing more will change.
    source.addEventListener('end', function () {
      source.close();
      source = null;
    });
    source.addEventListener('error', function () {
      setLive(false);
      // CONNECTING: the browser retries by itself. CLOSED (an HTTP error): retry with backoff.
      if (source && source.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 60000);
      }
    });
  }
  connect();

  // ── Network choice ────────────────────────────────────────────────────────────────────────
  var choosing = false;
  // The form also works without this script (it posts and is redirected back).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.matches || !form.matches('form[data-choose-network]')) return;
    var button = event.submitter;
    if (!button || !button.value) return;
    event.preventDefault();
    choose(form, button);
  });

  function choose(form, button) {
    var buttons = Array.prototype.slice.call(form.querySelectorAll('button'));
    var enabled = buttons.filter(function (b) {
      return !b.disabled;
    });
    var error = form.querySelector('[data-choose-error]');
    choosing = true;
    enabled.forEach(function (b) {
      b.disabled = true;
    });
    button.setAttribute('aria-busy', 'true');
    if (error) error.hidden = true;
    announce(S.choosing);
    var failed = function (message) {
      choosing = false;
      enabled.forEach(function (b) {
        b.disabled = false;
      });
      button.removeAttribute('aria-busy');
      if (error) {
        error.textContent = message || S.chooseFailed;
        error.hidden = false;
      }
      button.focus();
    };
    fetch(boot.choose, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ network: button.value }),
      credentials: 'same-origin',
      cache: 'no-store',
    })
      .then(function (response) {
        return response.json().then(function (body) {
          return { ok: response.ok, status: response.status, body: body };
        });
      })
      .then(function (result) {
        // A refusal (4xx) carries the buyer's text in the page language (gateway/checkout/strings.ts
        // `refusals`); a server failure says only that it failed.
        if (!result.ok) return failed(result.status < 500 && result.body && result.body.error && result.body.error.message);
        announce('');
        apply(result.body, true);
        choosing = false;
      })
      .catch(function () {
        failed(S.chooseFailed);
      });
  }

  // ── Copy buttons ──────────────────────────────────────────────────────────────────────────
  function revealCopyButtons(root) {
    Array.prototype.forEach.call(root.querySelectorAll('button.copy[hidden]'), function (b) {
      b.hidden = false;
    });
  }
  revealCopyButtons(document);

  function announce(message) {
    var feedback = byId('copy-feedback');
    feedback.textContent = '';
    // A new text node after a tick makes screen readers repeat an identical message.
    if (message)
      setTimeout(function () {
        feedback.textContent = message;
      }, 50);
  }

  function copyByHand(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (e) {
      ok = false;
    }
    area.remove();
    return ok;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(
        function () {
          return true;
        },
        function () {
          return copyByHand(text);
        },
      );
    }
    return Promise.resolve(copyByHand(text));
  }

  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button.copy');
    if (!button) return;
    var target = byId(button.getAttribute('data-copy'));
    if (!target) return;
    copyText(target.textContent.trim()).then(function (ok) {
      button.focus();
      announce(ok ? S.copied : S.copyFailed);
      if (!ok) return;
      button.textContent = S.copiedShort;
      button.classList.add('is-copied');
      setTimeout(function () {
        button.textContent = S.copy;
        button.classList.remove('is-copied');
      }, 2000);
    });
  });
})();
