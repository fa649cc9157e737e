/* Memory view: per core and module the heap over program order with the
 * peak, the tower of buffers live at the peak, the largest buffers' live
 * ranges, a pinned buffer card, search, and the runtime allocator. */

/* The two kinds of position are named apart (docs/json.md): the heap
 * trace's event index, and the schedule step. peak_position is the old
 * name of the first, in JSON written before the split. */
function peakHeapEvent(m) {
	return m.peak_heap_event !== undefined ? m.peak_heap_event : m.peak_position;
}

function bufName(b) {
	if (b.display_name)
		return b.display_name;
	const base = b.instruction || b.defined_by || "buffer " + b.logical_buffer_id;
	const si = b.shape_index || [];
	return si.length ? base + "{" + si.join(",") + "}" : base;
}

function moduleLabel(m) {
	return m.name + " (" + m.program_id + ")";
}

/* Modules by peak, largest first; the default is the first. */
function modulesByPeak(mem) {
	return (mem.modules || []).map(function (m, i) { return i; }).sort(function (a, b) {
		return (mem.modules[b].peak_bytes || 0) - (mem.modules[a].peak_bytes || 0);
	});
}

/* The module a deep link names: a name or a program id. */
function findModule(mem, key) {
	const ms = mem.modules || [];
	for (let i = 0; i < ms.length; i++)
		if (ms[i].program_id === key || ms[i].name === key)
			return i;
	return -1;
}

/* A buffer by display name, then instruction, then logical id, searched
 * in modules by peak (the deep link #buffer=NAME). */
function findBuffer(mem, name, moduleKey) {
	const order = modulesByPeak(mem);
	const want = moduleKey ? findModule(mem, moduleKey) : -1;
	const tests = [
		function (b) { return bufName(b) === name; },
		function (b) { return b.instruction === name; },
		function (b) { return String(b.logical_buffer_id) === name; },
	];
	for (const t of tests)
		for (const mi of order) {
			if (want >= 0 && mi !== want)
				continue;
			const bs = mem.modules[mi].live_at_peak || [];
			for (let i = 0; i < bs.length; i++)
				if (t(bs[i]))
					return { module: mi, index: i };
		}
	return null;
}

/* Colours by scope: the scope level at which the buffers at the peak
 * fall into the most groups, at most 10 (so the tower splits where it
 * can; the shallowest such level), each group its own colour, the
 * largest first. */
function scopeColoring(m) {
	const bufs = m.live_at_peak || [];
	let depth = 0, most = 0;
	for (let d = 0; d < 16; d++) {
		const n = new Set(bufs.map(function (b) { return scopeGroup(b.scope, d); })).size;
		if (n > 10)
			break;
		if (n > most) {
			depth = d;
			most = n;
		}
	}
	const bytes = new Map();
	bufs.forEach(function (b) {
		const g = scopeGroup(b.scope, depth);
		bytes.set(g, (bytes.get(g) || 0) + b.size_bytes);
	});
	const colors = new Map();
	Array.from(bytes.keys()).sort(function (a, b) { return bytes.get(b) - bytes.get(a); }).forEach(function (g, i) {
		colors.set(g, i < PALETTE.length ? PALETTE[i] : hashColor(g));
	});
	return { depth: depth, colors: colors };
}

function scopeGroup(scope, depth) {
	if (!scope)
		return "(no scope)";
	const parts = scope.split("/");
	return parts.slice(0, Math.min(parts.length, depth + 1)).join("/");
}

const MemoryView = {
	state: { core: "", module: -1, colorBy: "category", pinned: null, query: "" },

	init: function (root, mem) {
		this.root = root;
		this.mem = mem;
		const order = modulesByPeak(mem);
		this.state.module = order.length ? order[0] : -1;
		root.appendChild(this.toolbar());
		this.header = root.appendChild(el("div", { class: "module-head" }));
		const grid = root.appendChild(el("div", { class: "mem-grid" }));
		this.charts = grid.appendChild(el("div", { class: "mem-charts" }));
		const side = grid.appendChild(el("div", { class: "mem-side" }));
		this.results = side.appendChild(el("div", { class: "search-results" }));
		this.card = side.appendChild(el("div", { class: "card", id: "buffer-card" }));
		this.runtime = root.appendChild(el("div", { class: "runtime" }));
		this.renderModule();
		this.renderCard();
		this.renderRuntime();
		/* the charts take the page's width: draw them again when it
		 * changes (the pinned card stays) */
		const self = this;
		let timer = 0, width = this.charts.clientWidth;
		window.addEventListener("resize", function () {
			clearTimeout(timer);
			timer = setTimeout(function () {
				if (self.charts.clientWidth && self.charts.clientWidth !== width) {
					width = self.charts.clientWidth;
					self.renderModule();
					self.renderRuntime();
				}
			}, 150);
		});
	},

	toolbar: function () {
		const self = this, mem = this.mem;
		const bar = el("div", { class: "toolbar" });
		const core = el("select", { id: "mem-core", title: "core" });
		core.appendChild(el("option", { value: "" }, "all cores"));
		(mem.cores || []).forEach(function (c) {
			core.appendChild(el("option", { value: coreKey(c.host, c.plane) }, coreKey(c.host, c.plane)));
		});
		core.addEventListener("change", function () {
			self.state.core = core.value;
			self.fillModules();
			const first = self.moduleChoices()[0];
			if (first !== undefined)
				self.state.module = first;
			self.moduleSelect.value = String(self.state.module);
			self.renderModule();
			self.renderRuntime();
		});
		this.moduleSelect = el("select", { id: "mem-module", title: "module" });
		this.moduleSelect.addEventListener("change", function () {
			self.state.module = Number(self.moduleSelect.value);
			self.renderModule();
		});
		const color = el("select", { id: "mem-color", title: "colour the tower by" },
			el("option", { value: "category" }, "colour by category"),
			el("option", { value: "scope" }, "colour by scope"));
		color.addEventListener("change", function () {
			self.state.colorBy = color.value;
			self.renderModule();
		});
		this.colorSelect = color;
		const search = el("input", { id: "mem-search", type: "search", placeholder: "search buffers by name or scope", size: 34 });
		search.addEventListener("input", function () {
			self.state.query = search.value;
			self.renderResults();
			self.highlight();
		});
		this.searchInput = search;
		this.coreSelect = core;
		this.fillModules();
		bar.append(el("label", {}, "core ", core), el("label", {}, "module ", this.moduleSelect), color, search);
		return bar;
	},

	moduleChoices: function () {
		const mem = this.mem, key = this.state.core;
		let ids = null;
		if (key) {
			const c = (mem.cores || []).find(function (x) { return coreKey(x.host, x.plane) === key; });
			ids = new Set(((c && c.programs) || []).map(function (p) { return p.program_id; }));
		}
		return modulesByPeak(mem).filter(function (i) {
			return !ids || ids.has(mem.modules[i].program_id);
		});
	},

	fillModules: function () {
		const s = clear(this.moduleSelect), mem = this.mem;
		this.moduleChoices().forEach(function (i) {
			const m = mem.modules[i];
			s.appendChild(el("option", { value: String(i) },
				moduleLabel(m) + " — peak " + (m.error ? "n/a" : fmtBytes(m.peak_bytes))));
		});
		s.value = String(this.state.module);
	},

	currentCore: function () {
		const key = this.state.core, mem = this.mem;
		if (key)
			return (mem.cores || []).find(function (c) { return coreKey(c.host, c.plane) === key; });
		const m = mem.modules[this.state.module];
		return m && (mem.cores || []).find(function (c) {
			return (c.programs || []).some(function (p) { return p.program_id === m.program_id; });
		});
	},

	selectModule: function (mi) {
		if (mi === this.state.module)
			return;
		if (this.state.core && this.moduleChoices().indexOf(mi) < 0) {
			this.state.core = "";
			this.coreSelect.value = "";
			this.fillModules();
		}
		this.state.module = mi;
		this.moduleSelect.value = String(mi);
		this.renderModule();
	},

	renderModule: function () {
		const m = this.mem.modules[this.state.module];
		clear(this.header);
		clear(this.charts);
		if (!m) {
			this.header.appendChild(el("p", { class: "muted" }, "No compiled program with a buffer assignment in this capture" +
				((this.mem.runtime || []).length ? "; the runtime allocator is below." : ".")));
			this.card.parentNode.hidden = true;
			this.moduleSelect.parentNode.hidden = true;
			this.colorSelect.hidden = true;
			this.searchInput.hidden = true;
			return;
		}
		this.header.appendChild(this.moduleFacts(m));
		if (m.error) {
			this.charts.appendChild(el("p", { class: "warn" }, "No compiler timeline: " + m.error));
			return;
		}
		this.bands = [];
		this.charts.appendChild(el("h3", {}, "Heap over heap events (program order), and the buffers live at the peak"));
		this.charts.appendChild(this.heapChart(m));
		this.readout = this.charts.appendChild(el("div", { class: "readout", id: "heap-readout" },
			"Point at the curve to read a heap event; click to keep it."));
		this.charts.appendChild(this.legend(m));
		this.charts.appendChild(el("h3", {}, "Live ranges of the largest buffers at the peak"));
		this.charts.appendChild(this.rangesChart(m));
		this.charts.appendChild(this.lastUsers(m));
		this.charts.appendChild(this.splits(m));
		this.highlight();
	},

	moduleFacts: function (m) {
		const core = this.currentCore();
		const facts = el("div", { class: "facts" });
		function fact(k, v, copy) {
			facts.appendChild(el("div", { class: "fact" }, el("span", { class: "k" }, k), " ",
				el("span", { class: "v" }, v), copy !== undefined ? copyButton(String(copy)) : null));
		}
		fact("module", moduleLabel(m), m.name);
		if (!m.error) {
			fact("peak", fmtBytesExact(m.peak_bytes), m.peak_bytes);
			if (m.heap_points)
				fact("at heap event", peakHeapEvent(m) + (m.peak_instruction ? " (" + m.peak_instruction + ")" : ""),
					m.peak_instruction || peakHeapEvent(m));
			else
				fact("at heap event", "none (no heap-simulator trace)");
			if (m.peak_schedule_step !== null && m.peak_schedule_step !== undefined)
				fact("at schedule step", m.peak_schedule_step, m.peak_schedule_step);
			fact("padding at peak", fmtBytes(m.padding_bytes));
			/* outside HBM: the whole-program bytes the peak counts and
			 * the tower (XProf's list) leaves out */
			const whole = m.whole_program_buffers || [];
			if (whole.length)
				fact("whole-program, not in the tower", whole.length + " buffers, " +
					fmtBytes(whole.reduce(function (s, b) { return s + b.size_bytes; }, 0)) +
					" (" + whole.map(bufName).join(", ") + ")");
			fact("indefinite", fmtBytes(m.indefinite_bytes));
			if (m.max_scoped_bytes)
				fact("largest scoped allocation (not in the peak)", fmtBytes(m.max_scoped_bytes) +
					(m.max_scoped_instruction ? " (" + m.max_scoped_instruction + ")" : ""), m.max_scoped_bytes);
			if (m.fragmentation !== null && m.fragmentation !== undefined)
				fact("fragmentation", fmtPct(m.fragmentation));
		}
		/* only HBM is held to the (HBM) capacity */
		if (core && core.capacity_bytes && !m.memory_space) {
			const peak = Math.max(core.compiler_peak_bytes || 0, core.runtime_peak_bytes || 0);
			fact("capacity " + coreKey(core.host, core.plane), fmtBytes(core.capacity_bytes) +
				", " + fmtPctDown(1 - peak / core.capacity_bytes) + " free at the core's highest peak");
		}
		return facts;
	},

	colorOf: function (b) {
		if (this.state.colorBy === "scope")
			return this.scopes.colors.get(scopeGroup(b.scope, this.scopes.depth));
		return categoryColor(b.category);
	},

	heapChart: function (m) {
		const self = this;
		const W = Math.max(720, this.charts.clientWidth || 900), H = 340;
		const L = 84, T = 16, B = 44, TW = 190, GAP = 36;
		const pw = W - L - TW - GAP - 12, ph = H - T - B;
		const heap = m.heap || [];
		const n = Math.max(2, heap.length);
		let max = m.peak_bytes || 0, tower = 0;
		heap.forEach(function (p) { max = Math.max(max, p.bytes); });
		(m.live_at_peak || []).forEach(function (b) { tower += b.size_bytes; });
		const yt = byteTicks(Math.max(max, tower), 6);
		const x = function (i) { return L + (i / (n - 1)) * pw; };
		const y = function (b) { return T + ph - (b / yt.top) * ph; };
		this.scopes = scopeColoring(m);
		this.geom = { L: L, pw: pw, n: n, x: x };
		const s = svg("svg", { width: W, height: H, class: "chart", id: "heap-chart", role: "img" });
		yt.ticks.forEach(function (t) {
			s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(t), y2: y(t), class: "grid" }));
			s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, class: "tick", "text-anchor": "end", text: yt.label(t) }));
		});
		intTicks(n - 1, 8).forEach(function (t) {
			s.appendChild(svg("line", { x1: x(t), x2: x(t), y1: T + ph, y2: T + ph + 4, class: "axis" }));
			s.appendChild(svg("text", { x: x(t), y: T + ph + 16, class: "tick", "text-anchor": "middle", text: String(t) }));
		});
		s.appendChild(svg("text", { x: L + pw / 2, y: H - 6, class: "axis-title", "text-anchor": "middle",
			text: "heap event (heap-simulator event index; not a schedule step)" }));
		s.appendChild(svg("line", { x1: L, x2: L + pw, y1: T + ph, y2: T + ph, class: "axis" }));
		s.appendChild(svg("line", { x1: L, x2: L, y1: T, y2: T + ph, class: "axis" }));
		function stepPath(key) {
			let d = "";
			heap.forEach(function (p, i) {
				d += (i ? "H" + x(i).toFixed(1) + "V" : "M" + x(0).toFixed(1) + ",") + y(p[key]).toFixed(1);
			});
			return d;
		}
		if (heap.length) {
			s.appendChild(svg("path", { d: stepPath("bytes") + "V" + y(0) + "H" + x(0) + "Z", class: "heap-area" }));
			s.appendChild(svg("path", { d: stepPath("unpadded_bytes"), class: "heap-unpadded" }));
			s.appendChild(svg("path", { d: stepPath("bytes"), class: "heap-line", id: "heap-curve" }));
			const pi = Math.min(heap.length - 1, peakHeapEvent(m) + 1);
			const px = x(pi), py = y(m.peak_bytes);
			s.appendChild(svg("line", { x1: px, x2: px, y1: T, y2: T + ph, class: "peak-line", id: "peak-marker" }));
			s.appendChild(svg("circle", { cx: px, cy: py, r: 4, class: "peak-dot" }));
			const label = "peak " + fmtBytes(m.peak_bytes) + " after heap event " + peakHeapEvent(m) +
				(m.peak_instruction ? " (" + m.peak_instruction + ")" : "");
			const right = px < L + pw * 0.6;
			s.appendChild(svg("text", { x: right ? px + 8 : px - 8, y: Math.max(T + 12, py - 8), class: "peak-label",
				"text-anchor": right ? "start" : "end", text: label }));
		} else {
			s.appendChild(svg("text", { x: L + pw / 2, y: T + ph / 2, "text-anchor": "middle", class: "muted",
				text: (m.whole_program_buffers || []).length
					? "no heap-simulator trace: the peak is the whole-program buffers listed above"
					: "no heap-simulator trace: the tower shows the buffers that live for the whole program" }));
		}
		const guide = s.appendChild(svg("line", { x1: 0, x2: 0, y1: T, y2: T + ph, class: "guide", visibility: "hidden" }));
		const hit = svg("rect", { x: L, y: T, width: pw, height: ph, class: "hit" });
		let pinned = false;
		function at(ev) {
			const r = s.getBoundingClientRect();
			return Math.max(0, Math.min(heap.length - 1, Math.round((ev.clientX - r.left - L) / pw * (n - 1))));
		}
		function show(i) {
			const p = heap[i];
			if (!p)
				return;
			guide.setAttribute("x1", x(i));
			guide.setAttribute("x2", x(i));
			guide.setAttribute("visibility", "visible");
			/* heap point i comes before event i: a buffer allocated at
			 * event s and freed at event e is in it when s < i <= e */
			let n = 0, bytes = 0;
			(m.live_at_peak || []).forEach(function (b) {
				if (b.indefinite || b.live_start === null || (b.live_start < i && i <= b.live_end)) {
					n++;
					bytes += b.size_bytes;
				}
			});
			clear(self.readout).append("heap event " + i + ": " + fmtBytesExact(p.bytes) + " (unpadded " +
				fmtBytes(p.unpadded_bytes) + ") before " + (p.instruction || "the end") + "; " +
				n + " of the peak's buffers live here (" + fmtBytes(bytes) + ")", " ",
				copyButton(p.instruction || "", "copy the instruction"));
		}
		hit.addEventListener("mousemove", function (ev) { if (!pinned) show(at(ev)); });
		hit.addEventListener("click", function (ev) { pinned = !pinned; show(at(ev)); });
		if (heap.length)
			s.appendChild(hit);
		this.drawTower(s, m, L + pw + GAP, TW - 10, y);
		return s;
	},

	drawTower: function (s, m, x0, w, y) {
		const self = this;
		let base = 0;
		s.appendChild(svg("text", { x: x0 + w / 2, y: 12, "text-anchor": "middle", class: "axis-title", text: "at the peak" }));
		(m.live_at_peak || []).forEach(function (b, i) {
			const y1 = y(base), y2 = y(base + b.size_bytes);
			base += b.size_bytes;
			const h = Math.max(0.5, y1 - y2);
			const g = svg("g", { class: "band", "data-index": i, "data-name": bufName(b) });
			g.appendChild(svg("rect", { x: x0, y: y2, width: w, height: h, fill: self.colorOf(b) },
				svg("title", { text: bufName(b) + " " + ((b.shape && b.shape.text) || "") + " " + fmtBytes(b.size_bytes) })));
			if (h >= 13) {
				const label = bufName(b) + " " + fmtBytes(b.size_bytes);
				g.appendChild(svg("text", { x: x0 + 4, y: y2 + h / 2 + 4, class: "band-label",
					text: label.length > w / 6.2 ? label.slice(0, Math.floor(w / 6.2) - 1) + "…" : label }));
			}
			g.addEventListener("click", function () { self.pin(self.state.module, i); });
			s.appendChild(g);
		});
	},

	legend: function (m) {
		const groups = new Map(), self = this;
		(m.live_at_peak || []).forEach(function (b) {
			const k = self.state.colorBy === "scope" ? scopeGroup(b.scope, self.scopes.depth) : b.category || "?";
			groups.set(k, (groups.get(k) || 0) + b.size_bytes);
		});
		const div = el("div", { class: "legend" });
		Array.from(groups.entries()).sort(function (a, b) { return b[1] - a[1]; }).slice(0, 14).forEach(function (e) {
			const c = self.state.colorBy === "scope" ? self.scopes.colors.get(e[0]) : categoryColor(e[0]);
			div.appendChild(el("span", { class: "chip" }, el("i", { style: "background:" + c }), e[0] + " " + fmtBytes(e[1])));
		});
		return div;
	},

	rangesChart: function (m) {
		const self = this, g = this.geom;
		const bs = (m.live_at_peak || []).map(function (b, i) { return { b: b, i: i }; })
			.sort(function (a, b) { return b.b.size_bytes - a.b.size_bytes || a.i - b.i; }).slice(0, 30);
		const RH = 18, T = 6, W = g.L + g.pw + 240;
		const H = T + bs.length * RH + 24;
		const s = svg("svg", { width: W, height: H, class: "chart", id: "ranges-chart" });
		const heapN = (m.heap || []).length;
		const pos = function (p) { return heapN ? g.x(Math.min(g.n - 1, p)) : g.L; };
		bs.forEach(function (e, r) {
			const b = e.b;
			const yy = T + r * RH;
			const x1 = b.indefinite || b.live_start === null ? g.L : pos(b.live_start);
			const x2 = b.indefinite || b.live_end === null ? g.L + g.pw : pos(b.live_end + 1);
			const grp = svg("g", { class: "range", "data-index": e.i, "data-name": bufName(b) });
			grp.appendChild(svg("rect", { x: x1, y: yy + 3, width: Math.max(2, x2 - x1), height: RH - 7,
				fill: self.colorOf(b), class: b.indefinite ? "indefinite" : "" },
				svg("title", { text: bufName(b) + ": " + (b.indefinite ? "whole program" : b.live_start + "–" + b.live_end) })));
			const label = bufName(b) + "  " + fmtBytes(b.size_bytes);
			const after = x2 + 6 + label.length * 6.4 < W;
			grp.appendChild(svg("text", { x: after ? x2 + 6 : x1 - 6, y: yy + RH - 5, class: "range-label",
				"text-anchor": after ? "start" : "end", text: label }));
			grp.addEventListener("click", function () { self.pin(self.state.module, e.i); });
			s.appendChild(grp);
		});
		if (heapN) {
			const px = g.x(Math.min(heapN - 1, peakHeapEvent(m) + 1));
			s.appendChild(svg("line", { x1: px, x2: px, y1: 0, y2: H - 20, class: "peak-line" }));
		}
		intTicks(g.n - 1, 8).forEach(function (t) {
			s.appendChild(svg("text", { x: g.x(t), y: H - 6, class: "tick", "text-anchor": "middle", text: String(t) }));
		});
		return s;
	},

};
