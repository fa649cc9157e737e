const DiffView = { init: function (root) { root.appendChild(el("p", {}, "diff")); } };
