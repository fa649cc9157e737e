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
		if (coll)
			root.appendChild(this.traffic(coll, ops));
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
			if (h.device_type)
				parts.push(h.device_type);
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
					"over by " + fmtBytes(peak - c.capacity_bytes) : fmtPct(1 - peak / c.capacity_bytes))));
		});
		s.appendChild(t);
		const order = modulesByPeak(mem);
		const top = order.length ? mem.modules[order[0]] : null;
		if (top && !top.error) {
			s.appendChild(el("p", {}, "Highest compiler peak: ", el("b", {}, top.name), " " + fmtBytes(top.peak_bytes) +
				" at position " + top.peak_position + "; held by"));
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
			(by.size !== n ? " (" + fmtInt(n) + " rows in the ops table, one per op and core)" : "")));
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
