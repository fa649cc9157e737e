/* Scopes view: one expandable tree of name-scope paths with the bytes
 * live at a module's peak (memory scopes[]) and the op self time below
 * each path (op_scopes scopes[]), joined by path. */

function scopeParent(path) {
	const i = path.lastIndexOf("/");
	return i < 0 ? "" : path.slice(0, i);
}

const ScopesView = {
	init: function (root, mem, opScopes) {
		this.root = root;
		this.mem = mem;
		this.opScopes = opScopes;
		this.open = new Set([""]);
		this.selected = null;
		const self = this;
		const bar = root.appendChild(el("div", { class: "toolbar" }));
		if (mem && (mem.modules || []).length) {
			const s = el("select", { id: "scope-module", title: "bytes at the peak of" });
			modulesByPeak(mem).forEach(function (i) {
				const m = mem.modules[i];
				s.appendChild(el("option", { value: String(i) }, "bytes at the peak of " + moduleLabel(m)));
			});
			s.addEventListener("change", function () { self.module = Number(s.value); self.build(); self.render(); });
			this.module = modulesByPeak(mem)[0];
			bar.appendChild(s);
		}
		bar.appendChild(el("button", { onclick: function () { self.expandAll(true); } }, "expand all"));
		bar.appendChild(el("button", { onclick: function () { self.expandAll(false); } }, "collapse"));
		const grid = root.appendChild(el("div", { class: "scope-grid" }));
		this.table = grid.appendChild(el("div", { class: "scope-table", id: "scope-tree" }));
		this.detail = grid.appendChild(el("div", { class: "card", id: "scope-detail" }));
		this.build();
		/* open the first levels that hold nearly everything */
		this.nodes.forEach(function (n) { if (n.depth < 2) self.open.add(n.path); });
		this.render();
		this.renderDetail();
	},

	build: function () {
		const map = new Map();
		function node(path) {
			let n = map.get(path);
			if (!n) {
				n = { path: path, depth: path === "" ? 0 : path.split("/").length, bytes: null, buffers: null,
				      time: null, timeExcl: null, occ: null, children: [] };
				map.set(path, n);
				if (path !== "")
					node(scopeParent(path)).children.push(n);
			}
			return n;
		}
		node("");
		const m = this.mem && this.mem.modules ? this.mem.modules[this.module] : null;
		this.peak = m ? m.peak_bytes : null;
		((m && m.scopes) || []).forEach(function (s) {
			const n = node(s.path);
			n.bytes = s.inclusive_bytes;
			n.buffers = s.buffers;
		});
		let root = 0;
		((this.opScopes && this.opScopes.scopes) || []).forEach(function (s) {
			const n = node(s.path);
			n.time = s.inclusive_ps;
			n.timeExcl = s.exclusive_ps;
			n.occ = s.occurrences_inclusive;
			if (s.path === "")
				root = s.inclusive_ps;
		});
		this.rootTime = root;
		map.forEach(function (n) {
			n.children.sort(function (a, b) {
				return (b.bytes || 0) - (a.bytes || 0) || (b.time || 0) - (a.time || 0) || a.path.localeCompare(b.path);
			});
		});
		this.map = map;
		this.nodes = Array.from(map.values());
	},

	expandAll: function (on) {
		const self = this;
		this.open = new Set([""]);
		if (on)
			this.nodes.forEach(function (n) { self.open.add(n.path); });
		this.render();
	},

	/* #scope=PATH: open its ancestors, select it, bring it into view. */
	reveal: function (path) {
		let p = path;
		const mem = this.mem;
		const holds = function (mi) {
			return ((mem.modules[mi] || {}).scopes || []).some(function (s) { return s.path === path; });
		};
		if (mem && this.module !== undefined && !holds(this.module)) {
			const other = modulesByPeak(mem).find(holds);
			if (other !== undefined) {
				this.module = other;
				document.getElementById("scope-module").value = String(other);
				this.build();
			}
		}
		if (!this.map.has(path)) {
			this.selected = path;
			this.renderDetail();
			return false;
		}
		while (p !== "") {
			p = scopeParent(p);
			this.open.add(p);
		}
		this.selected = path;
		this.render();
		this.renderDetail();
		const row = this.table.querySelector(".scope-row.selected");
		if (row && row.scrollIntoView)
			row.scrollIntoView({ block: "center" });
		return true;
	},

	render: function () {
		const t = clear(this.table), self = this;
		t.appendChild(el("div", { class: "scope-row head" }, el("div", {}, "name scope"), el("div", { class: "num" }, "bytes at peak"),
			el("div", { class: "num" }, "of peak"), el("div", { class: "num" }, "buffers"),
			el("div", { class: "num" }, "op time"), el("div", { class: "num" }, "of op time"), el("div", { class: "num" }, "op count")));
		function walk(n) {
			t.appendChild(self.row(n));
			if (self.open.has(n.path))
				n.children.forEach(walk);
		}
		walk(this.map.get(""));
	},

	row: function (n) {
		const self = this;
		const open = this.open.has(n.path);
		const name = n.path === "" ? "(all)" : n.path.slice(n.path.lastIndexOf("/") + 1) || n.path;
		const tw = n.children.length ? el("button", { class: "twisty", onclick: function (ev) {
			ev.stopPropagation();
			if (self.open.has(n.path))
				self.open.delete(n.path);
			else
				self.open.add(n.path);
			self.render();
		} }, open ? "▾" : "▸") : el("span", { class: "twisty-space" });
		const r = el("div", { class: "scope-row" + (this.selected === n.path ? " selected" : ""), "data-path": n.path,
			onclick: function () { self.selected = n.path; self.render(); self.renderDetail(); } },
			el("div", { style: "padding-left:" + (n.depth * 14) + "px", title: n.path }, tw, " ", name),
			el("div", { class: "num" }, n.bytes === null ? "" : fmtBytes(n.bytes)),
			el("div", { class: "num share", style: n.bytes && this.peak ? "background-image:linear-gradient(to left, rgba(242,142,43,.35) " +
				(100 * n.bytes / this.peak).toFixed(1) + "%, transparent 0)" : null },
				n.bytes === null || !this.peak ? "" : fmtPct(n.bytes / this.peak)),
			el("div", { class: "num" }, n.buffers === null ? "" : fmtInt(n.buffers)),
			el("div", { class: "num" }, n.time === null ? "" : fmtPs(n.time)),
			el("div", { class: "num share", style: n.time && this.rootTime ? "background-image:linear-gradient(to left, rgba(31,111,235,.25) " +
				(100 * n.time / this.rootTime).toFixed(1) + "%, transparent 0)" : null },
				n.time === null || !this.rootTime ? "" : fmtPct(n.time / this.rootTime)),
			el("div", { class: "num" }, n.occ === null ? "" : fmtInt(n.occ)));
		return r;
	},

	renderDetail: function () {
		const d = clear(this.detail), p = this.selected;
		if (p === null) {
			d.appendChild(el("p", { class: "muted" }, "Click a scope to see the buffers it holds at the peak and its ops."));
			return;
		}
		const n = this.map.get(p);
		d.appendChild(el("h3", { class: "card-title" }, p === "" ? "(all scopes)" : p, " ", copyButton(p, "copy the path")));
		if (!n) {
			d.appendChild(el("p", { class: "warn" }, "No scope with this path in this page."));
			return;
		}
		const dl = el("dl", { class: "fields" });
		function f(k, v) {
			if (v !== null && v !== undefined && v !== "")
				dl.append(el("dt", {}, k), el("dd", { "data-field": k }, v));
		}
		f("bytes at peak", n.bytes === null ? null : fmtBytesExact(n.bytes));
		f("buffers", n.buffers);
		f("op time", n.time === null ? null : fmtPs(n.time) + (n.timeExcl ? " (" + fmtPs(n.timeExcl) + " exactly here)" : ""));
		f("op count", n.occ);
		d.appendChild(dl);
		const m = this.mem && this.mem.modules ? this.mem.modules[this.module] : null;
		const mi = this.module;
		const bufs = ((m && m.live_at_peak) || []).map(function (b, i) { return { b: b, i: i }; })
			.filter(function (e) { return p === "" || e.b.scope === p || (e.b.scope || "").startsWith(p + "/"); })
			.sort(function (a, b) { return b.b.size_bytes - a.b.size_bytes; });
		if (bufs.length) {
			d.appendChild(el("h4", {}, "Buffers at the peak in this scope"));
			d.appendChild(el("ul", { class: "hits" }, bufs.slice(0, 30).map(function (e) {
				return el("li", { onclick: function () { App.show("memory"); MemoryView.pin(mi, e.i); } },
					el("b", {}, bufName(e.b)), " ", fmtBytes(e.b.size_bytes), " ",
					el("span", { class: "muted" }, (e.b.shape && e.b.shape.text) || ""));
			})));
		}
		if (App.has("ops"))
			d.appendChild(el("button", { onclick: function () { App.show("ops"); OpsView.setScope(p); } }, "ops in this scope"));
		d.appendChild(el("div", { class: "card-link" }, "link ", copyButton(linkTo({ scope: p }), "copy a link to this scope")));
	},
};
