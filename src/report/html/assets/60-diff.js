/* Diff view: the totals of every section, both sides' towers at the peak
 * of a module pair on one scale, and the changed ops side by side. */

/* Every value in its section's unit, as the text output writes it:
 * bytes, times, and FLOP utilization in parts per billion of the peak
 * shown as a percentage (3 significant digits). */
function fmtUnit(unit, v) {
	if (v === null || v === undefined)
		return "–";
	if (unit === "ps")
		return fmtPs(v);
	if (unit === "bytes")
		return fmtBytes(v);
	if (unit === "ppb") {
		const p = Number(v) / 1e7;
		return (p === 0 ? "0" : Number(p.toPrecision(3)).toString()) + "%";
	}
	return fmtInt(v) + " " + unit;
}

/* A section's human label; the document gives one for every section. */
function diffTitle(key, s) {
	return (s && s.title) || key.replace(/_/g, " ");
}

/* Red where B is worse: more bytes or time, but less headroom or FLOP
 * utilization (the sections where more is better). */
const DIFF_MORE_IS_BETTER = { memory_cores_headroom: true, cores_flop_utilization: true };
function fmtDelta(unit, d, key) {
	const worse = DIFF_MORE_IS_BETTER[key] ? d < 0 : d > 0, better = DIFF_MORE_IS_BETTER[key] ? d > 0 : d < 0;
	return el("span", { class: worse ? "delta-up" : better ? "delta-down" : "" }, (d > 0 ? "+" : "") + fmtUnit(unit, d));
}

function fmtPercent(p) {
	return p === null || p === undefined ? "–" : (p > 0 ? "+" : "") + toFixedC(p, 1) + "%";
}

/* A row's name in its section. */
function diffRowName(key, r) {
	switch (key) {
	case "memory_modules": return r.module;
	case "memory_cores_compiler": case "memory_cores_runtime": case "memory_cores_headroom":
	case "cores_flop_utilization": case "cores_steady_step": return coreKey(r.host, r.plane);
	case "cores_steady_step_parts": return r.part + " on " + coreKey(r.host, r.plane);
	case "peak_buffers": return (r.instruction_b || r.instruction_a) + ((r.shape_index || []).length ? "{" + r.shape_index.join(",") + "}" : "");
	case "peak_scopes": case "op_scopes": return r.path;
	case "ops": return r.op;
	default: return r.collective || r.op || r.path || (r.host ? coreKey(r.host, r.plane) : "") || r.module || "";
	}
}

const DiffView = {
	init: function (root, diff, memA, memB) {
		this.root = root;
		this.diff = diff;
		this.memA = memA || { modules: [] };
		this.memB = memB || { modules: [] };
		root.appendChild(el("p", {}, "From ", el("b", { class: "mono" }, diff.a), " (A) to ", el("b", { class: "mono" }, diff.b),
			" (B); each row is B − A."));
		root.appendChild(this.totals());
		root.appendChild(el("h3", {}, "Memory at the peak, A and B on one scale"));
		root.appendChild(this.pairSelect());
		const grid = root.appendChild(el("div", { class: "mem-grid" }));
		this.towers = grid.appendChild(el("div", { class: "diff-towers" }));
		this.card = grid.appendChild(el("div", { class: "card", id: "diff-card" }));
		this.drawTowers();
		root.appendChild(el("h3", {}, "Changed ops, A and B side by side"));
		root.appendChild(this.opsTable());
		const self = this;
		Object.keys(diff.sections || {}).forEach(function (k) {
			if (k !== "ops")
				root.appendChild(self.section(k, diff.sections[k]));
		});
	},

	totals: function () {
		const t = el("table", { class: "plain diff", id: "diff-totals" }, el("tr", {},
			["section", "A", "B", "B − A", "%", "appeared", "disappeared", "grew", "shrank", "unchanged"].map(function (h) { return el("th", {}, h); })));
		const secs = this.diff.sections || {};
		Object.keys(secs).forEach(function (k) {
			const s = secs[k], c = s.counts || {};
			t.appendChild(el("tr", { "data-section": k }, el("td", {}, diffTitle(k, s)), el("td", { class: "num" }, fmtUnit(s.unit, s.totals.a)),
				el("td", { class: "num" }, fmtUnit(s.unit, s.totals.b)), el("td", { class: "num" }, fmtDelta(s.unit, s.totals.delta, k)),
				el("td", { class: "num" }, fmtPercent(s.totals.percent)),
				["appeared", "disappeared", "grew", "shrank", "unchanged"].map(function (x) { return el("td", { class: "num" }, fmtInt(c[x] || 0)); })));
		});
		return t;
	},

	pairSelect: function () {
		const self = this;
		const rows = ((this.diff.sections || {}).memory_modules || {}).rows || [];
		this.pairs = rows;
		const s = el("select", { id: "diff-module" });
		rows.forEach(function (r, i) {
			s.appendChild(el("option", { value: String(i) }, r.module + ": " + fmtUnit("bytes", r.a) + " → " + fmtUnit("bytes", r.b) +
				" (" + fmtPercent(r.percent) + ")"));
		});
		s.addEventListener("change", function () { self.pair = Number(s.value); self.drawTowers(); });
		/* the pair with the highest peak on either side */
		let best = 0;
		rows.forEach(function (r, i) {
			if (Math.max(r.a || 0, r.b || 0) > Math.max(rows[best].a || 0, rows[best].b || 0))
				best = i;
		});
		this.pair = best;
		s.value = String(best);
		return el("div", { class: "toolbar" }, el("label", {}, "module ", s));
	},

	drawTowers: function () {
		const t = clear(this.towers), r = this.pairs[this.pair];
		clear(this.card).appendChild(el("p", { class: "muted" }, "Click a band to pin its buffer here."));
		if (!r) {
			t.appendChild(el("p", { class: "muted" }, "No module with a compiler peak on either side."));
			return;
		}
		const find = function (mem, id) { return (mem.modules || []).find(function (m) { return m.program_id === id && m.name === r.module; }) ||
			(mem.modules || []).find(function (m) { return m.program_id === id; }); };
		const ma = r.program_id_a ? find(this.memA, r.program_id_a) : null;
		const mb = r.program_id_b ? find(this.memB, r.program_id_b) : null;
		const top = byteTicks(Math.max((ma && ma.peak_bytes) || 0, (mb && mb.peak_bytes) || 0), 6);
		t.appendChild(this.tower("A", ma, top));
		t.appendChild(this.tower("B", mb, top));
		t.appendChild(this.marksLegend());
	},

	/* How each buffer at a peak changed (peak_buffers rows), by side,
	 * module name, defining instruction and shape index. */
	bufferChange: function (side, m, b) {
		if (!this.changes) {
			const ch = this.changes = new Map();
			(((this.diff.sections || {}).peak_buffers || {}).rows || []).forEach(function (r) {
				const si = (r.shape_index || []).join(",");
				if (r.instruction_a)
					ch.set("A\u0000" + r.module + "\u0000" + r.instruction_a + "\u0000" + si, r);
				if (r.instruction_b)
					ch.set("B\u0000" + r.module + "\u0000" + r.instruction_b + "\u0000" + si, r);
			});
		}
		const r = this.changes.get(side + "\u0000" + m.name + "\u0000" + b.instruction + "\u0000" + (b.shape_index || []).join(","));
		return r ? r.change : null;
	},

	tower: function (side, m, yt) {
		const self = this, W = 330, H = 440, L = 70, T = 44, B = 20, w = 170, ph = H - T - B;
		const s = svg("svg", { width: W, height: H, class: "chart", id: "diff-tower-" + side });
		const y = function (b) { return T + ph - b / yt.top * ph; };
		s.appendChild(svg("text", { x: L, y: 14, class: "axis-title", text: side + ": " + (m ? moduleLabel(m) : "absent") }));
		if (m)
			s.appendChild(svg("text", { x: L, y: 30, class: "peak-label", text: "peak " + fmtBytes(m.peak_bytes) + " after event " + m.peak_position }));
		yt.ticks.forEach(function (t) {
			s.appendChild(svg("line", { x1: L, x2: L + w, y1: y(t), y2: y(t), class: "grid" }));
			s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, class: "tick", "text-anchor": "end", text: yt.label(t) }));
		});
		let base = 0;
		((m && m.live_at_peak) || []).forEach(function (b) {
			const y1 = y(base), y2 = y(base + b.size_bytes), h = Math.max(0.5, y1 - y2);
			base += b.size_bytes;
			const change = self.bufferChange(side, m, b);
			const g = svg("g", { class: "band" + (change ? " " + change : ""), "data-name": bufName(b), "data-change": change },
				svg("rect", { x: L, y: y2, width: w, height: h, fill: categoryColor(b.category) },
					svg("title", { text: bufName(b) + " " + ((b.shape && b.shape.text) || "") + " " + fmtBytes(b.size_bytes) +
						(change ? " (" + change + ")" : "") })));
			/* what is new in B, or gone from A, is marked beside the band */
			if (change === "appeared" || change === "disappeared" || change === "grew" || change === "shrank")
				g.appendChild(svg("rect", { x: L + w + 2, y: y2, width: 6, height: h, class: "mark " + change }));
			if (h >= 13) {
				const label = bufName(b) + " " + fmtBytes(b.size_bytes);
				g.appendChild(svg("text", { x: L + 4, y: y2 + h / 2 + 4, class: "band-label", text: label.length > 23 ? label.slice(0, 22) + "…" : label }));
			}
			g.addEventListener("click", function () { self.pin(side, m, b); });
			s.appendChild(g);
		});
		s.appendChild(svg("line", { x1: L, x2: L, y1: T, y2: T + ph, class: "axis" }));
		return s;
	},

	marksLegend: function () {
		return el("div", { class: "legend" }, ["appeared", "disappeared", "grew", "shrank"].map(function (c) {
			return el("span", { class: "chip" }, el("i", { class: "mark-" + c }), c + " (mark beside the band)");
		}));
	},

	pin: function (side, m, b) {
		const c = clear(this.card);
		c.appendChild(el("h3", { class: "card-title" }, side + ": " + bufName(b)));
		const dl = el("dl", { class: "fields" });
		function f(k, v) {
			if (v !== null && v !== undefined && v !== "")
				dl.append(el("dt", {}, k), el("dd", { "data-field": k }, el("span", { class: "val" }, String(v)), copyButton(String(v))));
		}
		f("module", moduleLabel(m));
		f("shape", b.shape && b.shape.text);
		f("size", fmtBytesExact(b.size_bytes));
		f("category", b.category);
		f("scope", b.scope);
		f("source", sourceText(b.source));
		f("live range", b.indefinite || b.live_start === null ? "whole program" : b.live_start + " – " + b.live_end);
		f("defined by", b.defined_by);
		f("freed by", b.freed_by);
		c.appendChild(dl);
	},

	opsTable: function () {
		const s = (this.diff.sections || {}).ops || { rows: [], unit: "ps" };
		const t = el("table", { class: "plain diff", id: "diff-ops" }, el("tr", {},
			["op", "module", "A time", "B time", "B − A", "%", "A count", "B count", "change"].map(function (h) { return el("th", {}, h); })));
		const changed = s.rows.filter(function (r) { return r.change !== "unchanged"; });
		const box = el("div", {}, t);
		/* the largest changes first; a huge diff shows the rest on demand */
		let shown = 0;
		function more(n) {
			changed.slice(shown, shown + n).forEach(row);
			shown = Math.min(changed.length, shown + n);
			clear(tail);
			if (shown < changed.length)
				tail.appendChild(el("button", { onclick: function () { more(changed.length); } },
					"show the other " + fmtInt(changed.length - shown) + " changed ops"));
		}
		const tail = box.appendChild(el("div", {}));
		function row(r) {
			t.appendChild(el("tr", { class: "row" }, el("td", { class: "mono" }, r.op), el("td", {}, r.module),
				el("td", { class: "num" }, fmtUnit(s.unit, r.a)), el("td", { class: "num" }, fmtUnit(s.unit, r.b)),
				el("td", { class: "num" }, fmtDelta(s.unit, r.delta, "ops")), el("td", { class: "num" }, fmtPercent(r.percent)),
				el("td", { class: "num" }, fmtInt(r.occurrences_a)), el("td", { class: "num" }, fmtInt(r.occurrences_b)),
				el("td", {}, r.change)));
		}
		more(2000);
		return box;
	},

	section: function (key, s) {
		const changed = s.rows.filter(function (r) { return r.change !== "unchanged"; });
		const d = el("details", { class: "section", id: "diff-" + key, open: key === "peak_buffers" || key === "memory_modules" },
			el("summary", {}, diffTitle(key, s) + " — " + changed.length + " changed of " + s.rows.length));
		const t = el("table", { class: "plain diff" }, el("tr", {},
			["name", "module", "A", "B", "B − A", "%", "change"].map(function (h) { return el("th", {}, h); })));
		changed.forEach(function (r) {
			t.appendChild(el("tr", { class: "row" }, el("td", { class: "mono" }, diffRowName(key, r)),
				el("td", {}, key.startsWith("memory_cores") || key.startsWith("cores_") || key === "op_scopes" ? "" : r.module || ""),
				el("td", { class: "num" }, fmtUnit(s.unit, r.a)), el("td", { class: "num" }, fmtUnit(s.unit, r.b)),
				el("td", { class: "num" }, fmtDelta(s.unit, r.delta, key)), el("td", { class: "num" }, fmtPercent(r.percent)),
				el("td", {}, r.change)));
		});
		d.appendChild(t);
		return d;
	},
};
