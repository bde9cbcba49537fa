// The dashboard's one script (served by the service; no inline script runs): copy buttons and revoke confirmations.
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source) return;
  var status = document.getElementById("copy-status");
  var done = function (text) {
    button.textContent = text;
    if (status) status.textContent = text === "Copied" ? "Copied to the clipboard" : "";
  };
  var text = source.textContent.trim();
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(
      function () {
        done("Copied");
      },
      function () {
        selectText(source);
        done("Press Ctrl+C");
      },
    );
  } else {
    selectText(source);
    done(document.execCommand && document.execCommand("copy") ? "Copied" : "Press Ctrl+C");
  }
});

function selectText(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

document.addEventListener("submit", function (event) {
  var message = event.target.getAttribute && event.target.getAttribute("data-confirm");
  if (message && !window.confirm(message)) event.preventDefault();
});
