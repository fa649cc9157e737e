/* Memory view, continued: the pinned buffer card and what keeps it live,
 * search, the runtime allocator charts, and the tables under the charts. */

Object.assign(MemoryView, {
	/* peak_by_last_user (docs/json.md), when the capture's JSON has it:
	 * the bytes at the peak grouped by the instruction they wait for. */
	lastUsers: function (m) {
		const rows = m.peak_by_last_user || [];
		const box = el("div", { id: "last-users" });
		if (!rows.length)
			return box;
		box.appendChild(el("h3", {}, "What the peak waits for: bytes at the peak by their last user"));
		box.appendChild(el("table", { class: "plain" }, el("tr", {},
			["bytes", "buffers", "last user", "schedule step", "waits (schedule steps after the peak; − before)", "scope"].map(function (h) { return el("th", {}, h); })),
			rows.slice(0, 20).map(function (r) {
				return el("tr", {}, el("td", { class: "num" }, fmtBytes(r.bytes)), el("td", { class: "num" }, fmtInt(r.buffers)),
					el("td", { class: "mono" }, r.last_user), el("td", { class: "num" }, fmtInt(r.step !== undefined ? r.step : r.position)),
					el("td", { class: "num" }, fmtInt(r.wait_steps !== undefined ? r.wait_steps : r.wait_positions)), el("td", { class: "muted" }, r.scope || ""));
			})));
		return box;
	},

	/* The what-if estimates: suggestions[] and the --split result. */
	splits: function (m) {
		const rows = (m.what_if ? [m.what_if] : []).concat(m.suggestions || []);
		const box = el("div", { id: "splits" });
		if (!rows.length)
			return box;
		box.appendChild(el("h3", {}, "What if a temporary were split along its leading dimension (estimates)"));
		box.appendChild(el("table", { class: "plain" }, el("tr", {},
			["buffer", "split", "new peak", "saved"].map(function (h) { return el("th", {}, h); })),
			rows.map(function (r, i) {
				return el("tr", {}, el("td", { class: "mono" }, (r.name || r.instruction) + (i === 0 && m.what_if ? " (--split)" : "")),
					el("td", { class: "num" }, "÷ " + fmtInt(r.k)), el("td", { class: "num" }, fmtBytes(r.peak_bytes)),
					el("td", { class: "num" }, fmtBytes(r.saved_bytes)));
			})));
		/* --split: every buffer split, its rounding, what is assumed */
		if (m.what_if && m.what_if.splits)
			box.appendChild(el("p", { class: "muted", id: "whatif-assumptions" },
				"--split: " + m.what_if.splits.map(function (p) {
					return p.name + " dimension " + p.dimension + " (" + fmtInt(p.dimension_size) + ") ÷ " +
						fmtInt(p.k) + (p.part_elements !== p.small_part_elements ?
						" (parts of " + fmtInt(p.part_elements) + " and " + fmtInt(p.small_part_elements) + ")" : "");
				}).join(", ") + " in one replay. Assumed: " + m.what_if.assumptions.join("; ") + "."));
		return box;
	},

	pin: function (mi, index) {
		this.selectModule(mi);
		this.state.pinned = { module: mi, index: index };
		this.renderCard();
		this.highlight();
	},

	highlight: function () {
		const q = this.state.query.trim().toLowerCase();
		const m = this.mem.modules[this.state.module];
		const pin = this.state.pinned;
		const bs = (m && m.live_at_peak) || [];
		this.root.querySelectorAll(".band, .range").forEach(function (g) {
			const b = bs[Number(g.getAttribute("data-index"))];
			const match = !q || (b && (bufName(b).toLowerCase().includes(q) || (b.scope || "").toLowerCase().includes(q)));
			g.classList.toggle("dim", !match);
			g.classList.toggle("pinned", !!(pin && pin.module === MemoryView.state.module &&
				pin.index === Number(g.getAttribute("data-index"))));
		});
	},

	renderResults: function () {
		const self = this, q = this.state.query.trim().toLowerCase();
		clear(this.results);
		if (!q)
			return;
		const hits = [];
		(this.mem.modules || []).forEach(function (m, mi) {
			(m.live_at_peak || []).forEach(function (b, i) {
				if (bufName(b).toLowerCase().includes(q) || (b.scope || "").toLowerCase().includes(q))
					hits.push({ m: m, mi: mi, b: b, i: i });
			});
		});
		hits.sort(function (a, b) { return b.b.size_bytes - a.b.size_bytes; });
		this.results.appendChild(el("div", { class: "muted" }, hits.length + " buffer(s) at a peak match"));
		const list = el("ul", { class: "hits" });
		hits.slice(0, 100).forEach(function (h) {
			list.appendChild(el("li", { onclick: function () { self.pin(h.mi, h.i); } },
				el("b", {}, bufName(h.b)), " ", fmtBytes(h.b.size_bytes), " ",
				el("span", { class: "muted" }, h.m.name)));
		});
		this.results.appendChild(list);
	},

	renderCard: function () {
		const c = clear(this.card), p = this.state.pinned;
		if (!p) {
			c.appendChild(el("p", { class: "muted" }, "Click a buffer in the tower or the live ranges to pin its card here; it stays until you click another."));
			return;
		}
		const m = this.mem.modules[p.module], b = m.live_at_peak[p.index];
		c.appendChild(el("h3", { class: "card-title" }, bufName(b)));
		const dl = el("dl", { class: "fields" });
		function field(k, v, copy) {
			if (v === null || v === undefined || v === "")
				return;
			dl.appendChild(el("dt", {}, k));
			dl.appendChild(el("dd", { "data-field": k }, el("span", { class: "val" }, v),
				copyButton(String(copy === undefined ? v : copy), "copy " + k)));
		}
		const sh = b.shape || {};
		const lay = sh.layout;
		field("name", bufName(b));
		field("module", moduleLabel(m), m.name);
		field("shape", sh.text);
		if (sh.dimensions)
			field("dimensions", sh.element_type + "[" + sh.dimensions.join(",") + "]");
		if (lay) {
			field("layout", "{" + (lay.minor_to_major || []).join(",") + "}" +
				((lay.tiles || []).length ? " tiles " + lay.tiles.map(function (t) { return "T(" + t.join(",") + ")"; }).join("") : ""));
		}
		field("size", fmtBytesExact(b.size_bytes), b.size_bytes);
		field("unpadded", fmtBytesExact(b.unpadded_bytes), b.unpadded_bytes);
		field("padding", fmtBytesExact(b.padding_bytes), b.padding_bytes);
		field("category", b.category + (b.indefinite ? " (lives for the whole program)" : ""), b.category);
		field("scope", b.scope);
		field("source", sourceText(b.source));
		field("live range", b.indefinite || b.live_start === null ? "whole program" :
			/* the first and the last event of its life, both counted */
			"heap events " + b.live_start + " to " + b.live_end + " (" + (b.live_end - b.live_start + 1) +
				(b.live_end === b.live_start ? " event)" : " events)"),
			b.indefinite ? "whole program" : b.live_start + "-" + b.live_end);
		field("defined by", b.defined_by ? b.defined_by + (b.opcode ? " (" + b.opcode + ")" : "") : null, b.defined_by);
		if (b.defined_by && App.hasOp(b.defined_by)) {
			const dd = dl.lastChild;
			dd.appendChild(el("button", { class: "jump", title: "this op in the ops table",
				onclick: function () { App.show("ops"); OpsView.setOp(b.defined_by); } }, "op"));
		}
		field("freed by", b.freed_by);
		field("allocation", b.allocation !== undefined ? "#" + b.allocation + " offset " + fmtInt(b.offset) : null,
			b.allocation + ":" + b.offset);
		field("logical buffer", b.logical_buffer_id + (b.canonical_buffer_id !== b.logical_buffer_id ?
			" (memory of " + b.canonical_buffer_id + ")" : ""), b.logical_buffer_id);
		c.appendChild(dl);
		c.appendChild(this.whyLive(b, m));
		c.appendChild(el("div", { class: "card-link" }, "link ",
			copyButton(linkTo({ buffer: bufName(b), module: m.program_id }), "copy a link to this card")));
	},

	/* "What keeps it live": the why_live object when the capture's JSON
	 * has it (docs/json.md), else the live range and the freeing
	 * instruction. */
	whyLive: function (b, m) {
		const box = el("div", { class: "why", id: "why-live" }, el("h4", {}, "What keeps it live"));
		const w = b.why_live;
		if (!w) {
			let t;
			if (b.indefinite || b.live_start === null)
				t = "It lives for the whole program (" + (b.category || "indefinite") + "): the peak cannot free it.";
			else
				t = "Allocated at heap event " + b.live_start + (b.defined_by ? " by " + b.defined_by : "") +
					", live across the peak at heap event " + peakHeapEvent(m) + ", freed at heap event " + b.live_end +
					(b.freed_by ? " while " + b.freed_by + " runs" : "") + ".";
			box.appendChild(el("p", {}, t));
			return box;
		}
		const dl = el("dl", { class: "fields" });
		function field(k, v) {
			if (v === null || v === undefined || v === "")
				return;
			dl.appendChild(el("dt", {}, k));
			dl.appendChild(el("dd", { "data-field": k }, el("span", { class: "val" }, String(v)), copyButton(String(v))));
		}
		field("kind", w.kind);
		field("last user", w.last_user);
		const step = w.last_user_step !== undefined ? w.last_user_step : w.last_user_position;
		const wait = w.wait_steps !== undefined ? w.wait_steps : w.wait_positions;
		field("at schedule step", step);
		field("its scope", w.last_user_scope);
		field("its source", w.last_user_source);
		field("waits", wait === null || wait === undefined ? null :
			wait === 0 ? "at the peak" :
			Math.abs(wait) + " schedule steps " + (wait > 0 ? "after" : "before") + " the peak");
		field("note", w.note);
		box.appendChild(dl);
		if (w.chain && w.chain.length) {
			box.appendChild(el("div", { class: "muted" }, "chain from the definition to the last user"));
			box.appendChild(el("ol", { class: "chain" }, w.chain.map(function (n) { return el("li", {}, n); })));
			box.appendChild(copyButton(w.chain.join(" -> "), "copy the chain"));
		}
		return box;
	},

	renderRuntime: function () {
		const r = clear(this.runtime), mem = this.mem;
		const rts = mem.runtime || [];
		r.appendChild(el("h3", {}, "Runtime allocator: bytes in use over time, per device"));
		if (!rts.length) {
			r.appendChild(el("p", { class: "muted" }, "No MemoryAllocation events in this capture."));
			return;
		}
		const core = this.state.core ? this.currentCore() : null;
		const users = {};
		(mem.cores || []).forEach(function (c) {
			if (c.runtime_memory_id)
				(users[c.host + "\u0000" + c.runtime_memory_id] = users[c.host + "\u0000" + c.runtime_memory_id] || []).push(shortPlane(c.plane));
		});
		const list = rts.slice().sort(function (a, b) {
			const am = core && a.host === core.host && a.memory_id === core.runtime_memory_id;
			const bm = core && b.host === core.host && b.memory_id === core.runtime_memory_id;
			return (bm ? 1 : 0) - (am ? 1 : 0);
		});
		const self = this;
		list.forEach(function (rt) {
			const who = users[rt.host + "\u0000" + rt.memory_id];
			r.appendChild(el("div", { class: "rt-title" }, rt.host + " memory " + rt.memory_id +
				(who ? " (" + who.join(", ") + ")" : "") + ": peak " + fmtBytes(rt.peak_bytes) +
				" (heap " + fmtBytes(rt.peak_heap_bytes) + ", stack " + fmtBytes(rt.peak_stack_bytes) + ")" +
				(rt.peak_step === null ? "" : " in step " + rt.peak_step) + "; " + fmtInt(rt.allocations) + " allocations; capacity " + fmtBytes(rt.capacity_bytes)));
			r.appendChild(self.runtimeChart(rt));
		});
	},

	runtimeChart: function (rt) {
		const tl = rt.timeline || [];
		const W = Math.max(720, this.runtime.clientWidth || 900), H = 170, L = 84, T = 10, B = 34;
		const pw = W - L - 20, ph = H - T - B;
		const s = svg("svg", { width: W, height: H, class: "chart runtime-chart" });
		if (!tl.length)
			return s;
		const t0 = tl[0].time_ps, span = Math.max(1, tl[tl.length - 1].time_ps - t0);
		let max = rt.peak_bytes || 0;
		tl.forEach(function (p) { max = Math.max(max, p.heap_bytes + p.stack_bytes); });
		const yt = byteTicks(max, 4), xt = timeTicks(span, 8);
		const x = function (t) { return L + (t - t0) / span * pw; };
		const y = function (b) { return T + ph - b / yt.top * ph; };
		yt.ticks.forEach(function (t) {
			s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(t), y2: y(t), class: "grid" }));
			s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, class: "tick", "text-anchor": "end", text: yt.label(t) }));
		});
		xt.ticks.forEach(function (t) {
			s.appendChild(svg("text", { x: x(t0 + t), y: T + ph + 16, class: "tick", "text-anchor": "middle", text: xt.label(t) }));
		});
		s.appendChild(svg("text", { x: L + pw / 2, y: H - 4, class: "axis-title", "text-anchor": "middle", text: "time since the first allocator event" }));
		/* at most one point per pixel column: the largest */
		let d = "", col = -1, colMax = 0, last = 0;
		tl.forEach(function (p, i) {
			const px = Math.round(x(p.time_ps)), v = p.heap_bytes + p.stack_bytes;
			if (px !== col) {
				if (col >= 0)
					d += "H" + col + "V" + y(colMax).toFixed(1);
				col = px;
				colMax = v;
				if (i === 0)
					d = "M" + px + "," + y(v).toFixed(1);
			} else {
				colMax = Math.max(colMax, v);
			}
			last = v;
		});
		d += "H" + col + "V" + y(Math.max(colMax, last)).toFixed(1) + "H" + (L + pw);
		s.appendChild(svg("path", { d: d, class: "runtime-line" }));
		s.appendChild(svg("line", { x1: L, x2: L + pw, y1: T + ph, y2: T + ph, class: "axis" }));
		if (rt.peak_time_ps !== null && rt.peak_time_ps !== undefined) {
			const px = x(rt.peak_time_ps);
			s.appendChild(svg("line", { x1: px, x2: px, y1: T, y2: T + ph, class: "peak-line" }));
			s.appendChild(svg("text", { x: px + (px < L + pw * 0.7 ? 6 : -6), y: T + 12, class: "peak-label",
				"text-anchor": px < L + pw * 0.7 ? "start" : "end", text: "peak " + fmtBytes(rt.peak_bytes) }));
		}
		const readout = el("div", { class: "readout rt-readout" }, "Point at the curve to read an allocator event; click to keep it.");
		this.runtimeReadout(s, tl, { L: L, T: T, pw: pw, ph: ph, t0: t0, span: span, x: x }, readout);
		return el("div", { class: "rt-chart" }, s, readout);
	},

	/* The allocator event at the pointer: the last one at or before it. */
	runtimeReadout: function (s, tl, g, readout) {
		const guide = s.appendChild(svg("line", { x1: 0, x2: 0, y1: g.T, y2: g.T + g.ph, class: "guide", visibility: "hidden" }));
		const hit = s.appendChild(svg("rect", { x: g.L, y: g.T, width: g.pw, height: g.ph, class: "hit" }));
		let pinned = false;
		function show(ev) {
			const r = s.getBoundingClientRect();
			const t = g.t0 + (ev.clientX - r.left - g.L) / g.pw * g.span;
			let lo = 0, hi = tl.length - 1;
			while (lo < hi) {
				const mid = (lo + hi + 1) >> 1;
				if (tl[mid].time_ps <= t)
					lo = mid;
				else
					hi = mid - 1;
			}
			const p = tl[lo];
			guide.setAttribute("x1", g.x(p.time_ps));
			guide.setAttribute("x2", g.x(p.time_ps));
			guide.setAttribute("visibility", "visible");
			const what = p.activity + " of " + fmtBytes(p.allocation_bytes) + (p.op ? " by " + p.op : "") +
				(p.shape ? " " + p.shape : "") + (p.region ? " (" + p.region + ")" : "");
			clear(readout).append(fmtPs(p.time_ps - g.t0) + ", step " + p.step + ": " + what + "; in use " +
				fmtBytes(p.heap_bytes + p.stack_bytes) + " (heap " + fmtBytes(p.heap_bytes) + ")", " ",
				copyButton(what, "copy the event"));
		}
		hit.addEventListener("mousemove", function (ev) { if (!pinned) show(ev); });
		hit.addEventListener("click", function (ev) { pinned = !pinned; show(ev); });
	},
});
