/* Summary view: what the text report says, with the same warnings, each
 * part linking to the view that shows all of it. */

const SummaryView = {
	init: function (root, D) {
		const info = D.info, mem = D.memory, ops = D.ops, coll = D.collectives;
		root.appendChild(this.warnings(D.warnings || []));
		if (info)
			root.appendChild(this.capture(info));
		if (mem)
			root.appendChild(this.memory(mem));
		if (ops)
			root.appendChild(this.time(ops, D.opScopes));
		if (ops && (ops.cores || []).some(function (c) { return c.steady; }))
			root.appendChild(this.steps(ops));
		if (coll)
			root.appendChild(this.traffic(coll, ops));
		if (D.advice)
			root.appendChild(this.advice(D.advice));
	},

	/* Per core: where the steps come from and the steady state; per step
	 * across cores the spread (docs/ops.md, Steps). A core with more than
	 * 100 steps has its summary only, unless the page was written with
	 * --per-step (step_rows): the chart draws the cores with rows. */
	steps: function (ops) {
		const s = el("section", { id: "summary-steps" }, el("h3", {}, "Steps"));
		const cores = (ops.cores || []).filter(function (c) { return c.steady; });
		const rows = cores.filter(function (c) { return c.steps; });
		const t = el("table", { class: "plain", id: "summary-steps-cores" }, el("tr", {},
			["host", "core", "clock", "steps", "from", "steady step", "compute", "collectives", "copies", "input", "idle",
			 "outside the steps", "compute by category (of compute)"].map(function (h) {
				return el("th", {}, h);
			})));
		cores.forEach(function (c) {
			const st = c.steady || {};
			const share = function (x) { return st.sum_ps ? fmtPct(x / st.sum_ps) : "–"; };
			const from = c.steps_source === "inferred" ? "inferred: " +
				(c.source === "gpu_kernels" ? "executions of " : "runs of ") + c.steps_program :
				c.steps_source === "group_id" ? "group_id" :
				c.steps_source === "group_id_empty_steps_line" ? "group_id (empty Steps line)" :
				"Steps line";
			const cats = (st.compute_by_category || []).map(function (x) {
				return x.category + " " + fmtPct(x.share || 0);
			}).join(", ");
			const out = c.outside_steps || {};
			const drift = c.clock_drift && c.clock_drift.over_tolerance ?
				" (the timeline's steps " + c.clock_drift.min_ratio.toFixed(2) + "x–" +
				c.clock_drift.max_ratio.toFixed(2) + "x its spans)" : "";
			t.appendChild(el("tr", {}, el("td", {}, c.host), el("td", {}, shortPlane(c.plane)),
				el("td", { class: drift ? "warn" : "muted" }, (c.clock || "timeline") + drift),
				el("td", { class: "num" }, fmtInt(st.n_steady || 0) + (st.warmup_left_out ? " (+1 warm-up)" : "")),
				el("td", { class: "muted" }, from),
				el("td", { class: "num" }, fmtPs(st.step_ps || 0)),
				el("td", { class: "num" }, share(st.compute_ps)),
				el("td", { class: "num" + (st.collective_share >= 0.3 ? " warn" : "") }, share(st.collective_ps)),
				el("td", { class: "num" + (st.copy_share > 0.1 ? " warn" : "") }, share(st.copy_ps)),
				el("td", { class: "num" + (st.input_share > 0.1 ? " warn" : "") }, share(st.input_ps || 0)),
				el("td", { class: "num" + (st.idle_share > 0.1 ? " warn" : "") }, share(st.idle_ps)),
				el("td", { class: "num" }, out.op_ps ? fmtPs(out.op_ps) + " of op time" : "–"),
				el("td", { class: "muted steps-categories" }, cats)));
		});
		s.appendChild(t);
		if (rows.length < cores.length)
			s.appendChild(el("p", { class: "muted", id: "summary-steps-left-out" }, (cores.length - rows.length) +
				" core(s) with more than 100 steps: their steps in summary only (write the page with --per-step for every step)"));
		if (rows.length >= 2) {
			s.appendChild(this.stepChart(rows));
			s.appendChild(this.stepLegend(rows));
		}
		if (ops.steps_across && ops.steps_across.length)
			this.stepsAcross(s, ops.steps_across);
		else if (ops.steps_across_summary)
			this.acrossLine(s, ops.steps_across_summary);
		return s;
	},

	/* Per step across every core with steps, as `ops` text prints it: the
	 * slowest and fastest core and the spread; a straggler's step is one
	 * whose slowest core is over 10% (TP_STRAGGLER_PCT) longer. */
	stepsAcross: function (s, across) {
		const stragglers = across.filter(function (x) { return x.straggler && !x.warmup; }).length;
		this.acrossLine(s, { n_steps: across.length, n_cores: across[0].n_cores, stragglers: stragglers });
		const t = el("table", { class: "plain", id: "summary-steps-across-table" }, el("tr", {},
			["step", "slowest", "fastest", "spread", "spread", "mostly in", "slowest core", ""].map(function (h) {
				return el("th", {}, h);
			})));
		const self = this;
		across.forEach(function (x) {
			t.appendChild(el("tr", {}, el("td", { class: "num" }, String(x.index)),
				el("td", { class: "num" }, fmtPs(x.slowest_ps)), el("td", { class: "num" }, fmtPs(x.fastest_ps)),
				el("td", { class: "num" }, fmtPs(x.spread_ps)),
				el("td", { class: "num" + (x.straggler ? " warn" : "") }, fmtPct(x.spread_share)),
				self.mostlyIn(x),
				el("td", {}, x.slowest_host + " " + x.slowest_plane),
				el("td", { class: "muted", title: x.edge ? "the first or last of inferred steps, bounded by each core's own first or last op (launch skew): not judged" : "" },
					(x.straggler ? "straggler" : "") + (x.warmup ? " warm-up" : "") + (x.edge ? " edge" : ""))));
		});
		s.appendChild(el("div", { class: "scroll-box" }, t));
	},

	/* The part of the step the spread lies in most (spread_from), with
	 * how much longer the slowest core spent in it; every part's
	 * difference in its title, as ops text words it. */
	mostlyIn: function (x) {
		if (!x.spread_from || !x.slowest_parts || !x.fastest_parts)
			return el("td", { class: "muted" }, "–");
		const diff = function (k) { return x.slowest_parts[k + "_ps"] - x.fastest_parts[k + "_ps"]; };
		const parts = ["compute", "collective", "copy", "input", "idle"].filter(function (k) {
			return diff(k) !== 0;
		}).map(function (k) {
			return k + " " + (diff(k) > 0 ? "+" : "−") + fmtPs(Math.abs(diff(k)));
		});
		return el("td", { title: "slowest core less the fastest: " + parts.join(", ") },
			x.spread_from + " +" + fmtPs(diff(x.spread_from)));
	},

	/* The line above the table, from steps_across_summary alone when the
	 * rows were left out. */
	acrossLine: function (s, sum) {
		s.appendChild(el("p", { id: "summary-steps-across" }, "steps across cores: " + sum.n_steps + " step" +
			(sum.n_steps === 1 ? "" : "s") + " on " + sum.n_cores + " cores, " + sum.stragglers +
			" with a straggler (slowest core over 10% longer than the fastest; warm-up left out)"));
	},

	/* Each core's step durations, one line per core: a straggler shows as
	 * one line above the others. */
	stepChart: function (cores) {
		const W = 720, H = 160, L = 60, B = 20;
		const n = Math.min.apply(null, cores.map(function (c) { return c.steps.length; }));
		let max = 0;
		cores.forEach(function (c) { c.steps.slice(0, n).forEach(function (x) { max = Math.max(max, x.duration_ps); }); });
		const g = svg("svg", { width: W, height: H, id: "summary-steps-chart", class: "chart" });
		if (!n || !max)
			return g;
		const x = function (i) { return L + (n > 1 ? i * (W - L - 10) / (n - 1) : 0); };
		const y = function (v) { return H - B - v / max * (H - B - 10); };
		g.appendChild(svg("text", { x: 2, y: 14, class: "axis" })).textContent = fmtPs(max);
		g.appendChild(svg("text", { x: 2, y: H - B })).textContent = "0";
		cores.forEach(function (c, k) {
			const pts = c.steps.slice(0, n).map(function (st, i) { return x(i) + "," + y(st.duration_ps); }).join(" ");
			const line = g.appendChild(svg("polyline", { points: pts, fill: "none", stroke: PALETTE[k % PALETTE.length], "stroke-width": 1.5 }));
			line.appendChild(svg("title", {})).textContent = c.host + " " + c.plane;
		});
		g.appendChild(svg("text", { x: L, y: H - 4 })).textContent = "step 0 … " + (n - 1) + ", duration per core";
		return g;
	},

	/* Which line is which core: the chart's colours, in its order. */
	stepLegend: function (cores) {
		const shown = cores.slice(0, 16);
		const div = el("div", { class: "legend", id: "summary-steps-legend" }, shown.map(function (c, k) {
			return el("span", { class: "chip" }, el("i", { style: "background:" + PALETTE[k % PALETTE.length] }),
				c.host + " " + shortPlane(c.plane));
		}));
		if (cores.length > shown.length)
			div.appendChild(el("span", { class: "muted" }, "and " + (cores.length - shown.length) +
				" more cores (hover a line for its core)"));
		return div;
	},

	/* The advice: each rule that fired with its figures, then the rest. */
	advice: function (advice) {
		const s = el("section", { id: "summary-advice" }, el("h3", {}, "Advice"));
		const fired = advice.filter(function (a) { return a.verdict === "fired"; });
		s.appendChild(el("p", {}, fired.length + " of " + advice.length + " rule(s) fired (docs/ops.md)"));
		s.appendChild(el("ul", { id: "summary-advice-fired" }, fired.map(function (a) {
			return el("li", { class: "warn" }, a.text);
		})));
		/* debug-print: every host over its limit, with its figure */
		const hosts = [];
		fired.forEach(function (a) {
			(a.hosts || []).forEach(function (h) {
				if (h.share >= a.threshold)
					hosts.push(el("li", {}, a.rule + ": " + h.host + " " + toFixedC(100 * h.share, 1) +
						"% of step time (mean of " + h.steps + " step(s) with debug_print events)"));
			});
		});
		if (hosts.length)
			s.appendChild(el("ul", { id: "summary-advice-hosts" }, hosts));
		const rest = function (v, label) {
			const names = advice.filter(function (a) { return a.verdict === v; });
			if (names.length)
				s.appendChild(el("p", { class: "muted" }, label + ": ", names.map(function (a) {
					return el("span", { title: a.text }, a.rule + " ");
				})));
		};
		rest("not_fired", "not fired");
		rest("not_judged", "could not be judged");
		return s;
	},

	warnings: function (ws) {
		const box = el("section", { class: "warnings", id: "warnings" });
		if (!ws.length)
			return box;
		box.appendChild(el("h3", {}, "Warnings"));
		box.appendChild(el("ul", {}, ws.map(function (w) { return el("li", { class: "warn" }, w); })));
		return box;
	},

	capture: function (info) {
		const s = el("section", {}, el("h3", {}, "Capture"));
		const hosts = info.hosts || [];
		let busy = 0;
		hosts.forEach(function (h) { busy += h.device_planes_with_events || 0; });
		const h = hosts[0];
		const parts = [];
		if (h) {
			parts.push(h.name + (hosts.length > 1 ? " and others" : ""), hosts.length + " host(s)", busy + " busy device(s)");
			const kinds = [];
			hosts.forEach(function (x) {
				if (x.device_type && kinds.indexOf(x.device_type) < 0)
					kinds.push(x.device_type);
			});
			if (kinds.length)
				parts.push(kinds.join(" and "));
			if (h.capture && h.capture.start_unix_ns) {
				const ms = Number(BigInt(h.capture.start_unix_ns) / 1000000n);
				parts.push(new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC"));
			}
			if (h.capture && h.capture.duration_ps)
				parts.push(fmtPs(h.capture.duration_ps));
		} else {
			parts.push((info.modules || []).length + " compiled program(s), no trace");
		}
		s.appendChild(el("p", { id: "capture-line" }, parts.join(", ")));
		s.appendChild(el("p", { class: "muted" }, (info.sources || []).map(function (x) { return x.path; }).join(", ")));
		return s;
	},

	memory: function (mem) {
		const s = el("section", {}, el("h3", {}, "Memory: peak per core (compiler plan | runtime allocator) and headroom"));
		const t = el("table", { class: "plain", id: "summary-cores" }, el("tr", {},
			["host", "core", "compiler peak", "program", "runtime peak", "capacity", "free at the higher peak"].map(function (h) {
				return el("th", {}, h);
			})));
		(mem.cores || []).forEach(function (c) {
			const m = (mem.modules || []).find(function (x) { return x.program_id === c.compiler_peak_program_id; });
			const peak = Math.max(c.compiler_peak_bytes || 0, c.runtime_peak_bytes || 0);
			t.appendChild(el("tr", {}, el("td", {}, c.host), el("td", {}, shortPlane(c.plane)),
				el("td", { class: "num" }, fmtBytes(c.compiler_peak_bytes)),
				el("td", {}, m ? el("a", { href: "#view=memory&module=" + encodeURIComponent(m.program_id) }, m.name) : "–"),
				el("td", { class: "num" }, fmtBytes(c.runtime_peak_bytes)),
				el("td", { class: "num" }, fmtBytes(c.capacity_bytes)),
				el("td", { class: "num" + (c.capacity_bytes && peak > 0.9 * c.capacity_bytes ? " warn" : "") },
					!c.capacity_bytes ? "–" : peak > c.capacity_bytes ?
					"over by " + fmtBytes(peak - c.capacity_bytes) : fmtPctDown(1 - peak / c.capacity_bytes))));
		});
		s.appendChild(t);
		const order = modulesByPeak(mem);
		const top = order.length ? mem.modules[order[0]] : null;
		if (top && !top.error) {
			s.appendChild(el("p", {}, "Highest compiler peak: ", el("b", {}, top.name), " " + fmtBytes(top.peak_bytes) +
				" at heap event " + peakHeapEvent(top) + "; held by"));
			const bufs = (top.live_at_peak || []).map(function (b, i) { return { b: b, i: i }; })
				.sort(function (a, b) { return b.b.size_bytes - a.b.size_bytes; }).slice(0, 5);
			s.appendChild(el("table", { class: "plain" }, bufs.map(function (e) {
				return el("tr", {}, el("td", { class: "num" }, fmtBytes(e.b.size_bytes)),
					el("td", { class: "num" }, fmtPct(e.b.size_bytes / top.peak_bytes)),
					el("td", {}, el("a", { href: "#buffer=" + encodeURIComponent(bufName(e.b)) + "&module=" + top.program_id }, bufName(e.b))),
					el("td", { class: "mono" }, (e.b.shape && e.b.shape.text) || ""),
					el("td", { class: "muted" }, e.b.scope || ""));
			})));
		}
		return s;
	},

	time: function (ops, opScopes) {
		const s = el("section", {}, el("h3", {}, "Time"));
		let n = 0, opPs = 0, dev = 0;
		const all = [];
		(ops.cores || []).forEach(function (c) {
			n += (c.ops || []).length;
			opPs += c.self_ps || 0;
			dev += c.device_ps || 0;
			(c.ops || []).forEach(function (o) { all.push(o); });
		});
		/* ops summed over cores, as the text report */
		const by = new Map();
		all.forEach(function (o) {
			const k = o.program_id + "\u0000" + o.name;
			const e = by.get(k) || { name: o.name, module: o.module, total: 0, occ: 0 };
			e.total += o.self_ps;
			e.occ += o.occurrences;
			by.set(k, e);
		});
		/* ops counted once over the cores they ran on, as the text */
		s.appendChild(el("p", { id: "summary-time" }, fmtInt(by.size) + " ops on " + (ops.cores || []).length +
			" core(s): op time " + fmtPs(opPs) + " of " + fmtPs(dev) + " device time (all cores; the shares below are of it)" +
			(by.size !== n ? " (the Ops tab sums them over cores; per core it has " + fmtInt(n) + " rows, one per op and core)" : "")));
		const top = Array.from(by.values()).sort(function (a, b) { return b.total - a.total; }).slice(0, 5);
		s.appendChild(el("table", { class: "plain", id: "summary-ops" }, top.map(function (e) {
			return el("tr", {}, el("td", { class: "num" }, fmtPs(e.total)), el("td", { class: "num" }, dev ? fmtPct(e.total / dev) : ""),
				el("td", {}, el("a", { href: "#op=" + encodeURIComponent(e.name) }, e.name)),
				el("td", { class: "muted" }, (e.module || "") + " ×" + e.occ));
		})));
		const sc = ((opScopes && opScopes.scopes) || []).filter(function (x) { return x.depth === 1; })
			.sort(function (a, b) { return b.inclusive_ps - a.inclusive_ps; }).slice(0, 5);
		if (sc.length)
			s.appendChild(el("table", { class: "plain" }, sc.map(function (x) {
				return el("tr", {}, el("td", { class: "num" }, fmtPs(x.inclusive_ps)), el("td", { class: "num" }, dev ? fmtPct(x.inclusive_ps / dev) : ""),
					el("td", {}, el("a", { href: "#scope=" + encodeURIComponent(x.path) }, "scope " + x.path)));
			})));
		return s;
	},

	traffic: function (coll, ops) {
		const s = el("section", {}, el("h3", {}, "Traffic"));
		const cs = coll.collectives || [];
		let execs = 0, most = 0, total = 0, senders = 0, t = 0, dev = 0;
		cs.forEach(function (c) { execs += c.occurrences || 0; });
		/* per device is the busiest device's ring bytes, never the sum */
		(coll.cores || []).forEach(function (c) {
			t += c.collective_ps || 0; dev += c.device_ps || 0;
			total += c.ring_bytes || 0; senders += c.ring_bytes ? 1 : 0;
			most = Math.max(most, c.ring_bytes || 0);
		});
		s.appendChild(el("p", { id: "summary-traffic" }, cs.length + " collective(s), " + fmtInt(execs) + " execution(s), " +
			(total ? fmtBytes(most) + " sent per device (ring, the most one device sent; " + fmtBytes(total) + " in total over " +
			 senders + " device(s)), " : fmtBytes(0) + " sent per device (ring), ") + fmtPs(t) + (dev ? " = " + fmtPct(t / dev) + " of device time (all cores)" : "")));
		return s;
	},
};
