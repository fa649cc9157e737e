/* The oom page (tpuprof oom --format html): per report the verdict, the
 * tower of listed allocations (click one to pin its card, with copy
 * buttons, as on the memory page) and the listed bytes by name scope. */

const OomView = {
	init: function (root, doc) {
		if (!doc || !doc.reports.length) {
			root.appendChild(el("p", { class: "warn" }, "No out-of-memory report was found in the input."));
			return;
		}
		doc.reports.forEach(function (r, i) { OomView.report(root, r, i, doc.reports.length); });
	},

	fig: function (r, name) {
		const f = r.figures[name];
		return f ? f.text : null;
	},

	verdict: function (r) {
		const F = function (n) { return OomView.fig(r, n); };
		const v = r.verdict;
		let s;
		if (F("used") && F("capacity"))
			s = (r.kind === "compile" ? "The program needs " : "Asked for ") + F("used") + " of " + F("capacity") + " " + (r.memory_space || "");
		else if (F("request"))
			s = (r.runtime_op === "reserve" ? "Reserving program memory of " : "Allocating ") + F("request") + " failed" +
				(F("free") ? "; " + F("free") + " free" : "") + (F("reservable") ? ", " + F("reservable") + " reservable" : "") +
				(F("largest_free_region") ? ", the largest free region " + F("largest_free_region") + " (fragmentation)" : "");
		else
			s = "Out of memory (no sizes printed)";
		if (v.over_by_bytes !== null)
			s += (r.kind === "compile" ? ": over by " : ": short by ") + (v.over_by_derived ? fmtBytes(v.over_by_bytes) + " (derived)" : F("exceeded"));
		return s;
	},

	report: function (root, r, i, n) {
		const sec = root.appendChild(el("section", { class: "oom-report", id: "oom-report-" + (i + 1) }));
		sec.appendChild(el("h2", {}, "Report " + (i + 1) + " of " + n + ": " + r.input + " line " + r.line +
			" (" + (r.kind === "gpu" ? "GPU" : r.kind === "compile" ? "TPU compile time" : "TPU run time") + (r.memory_space ? ", " + r.memory_space : "") +
			(r.error_code ? ", " + r.error_code : "") + ")"));
		sec.appendChild(el("p", { class: "verdict" }, OomView.verdict(r)));
		const chip = r.verdict.chip;
		if (chip.candidates.length)
			sec.appendChild(el("p", {}, "Chip: " + chip.candidates.join(" or ") + " (" + fmtBytes(chip.device_bytes) + " per device; " + chip.basis + ")"));
		const rows = Object.keys(r.figures).map(function (k) {
			const f = r.figures[k];
			return el("tr", {}, el("td", {}, k), el("td", { class: "num" }, f.text),
				el("td", { class: "num muted" }, f.bytes === null ? "" : fmtBytesExact(f.bytes)));
		});
		sec.appendChild(el("h3", {}, "Where it goes (as printed)"));
		sec.appendChild(el("table", { class: "plain oom-figures" }, el("tr", {}, el("th", {}, "figure"), el("th", {}, "printed"), el("th", {}, "bytes")), rows));
		if (r.missing.length)
			sec.appendChild(el("p", { class: "warn" }, "Not in the text (cut short?): " + r.missing.join(", ")));
		if (!r.allocations.length)
			return;
		sec.appendChild(el("h3", {}, "Listed allocations (" + r.allocations.length + "; XLA lists only the largest): " +
			fmtBytes(r.listed.bytes) + ", padding " + fmtBytes(r.listed.padding_bytes)));
		const grid = sec.appendChild(el("div", { class: "mem-grid" }));
		const card = el("div", { class: "card oom-card" });
		grid.appendChild(OomView.tower(r, card));
		grid.appendChild(card);
		OomView.card(card, r, null);
		sec.appendChild(el("h3", {}, "Listed bytes by name scope"));
		sec.appendChild(el("table", { class: "plain oom-scopes" }, el("tr", {}, el("th", {}, "scope"), el("th", {}, "bytes"), el("th", {}, "allocations")),
			r.scopes.map(function (s) {
				return el("tr", {}, el("td", { class: "mono", style: "padding-left:" + (s.depth * 12) + "px" }, s.name),
					el("td", { class: "num" }, fmtBytes(s.bytes)), el("td", { class: "num" }, fmtInt(s.count)));
			})));
		if (r.verdict.over_by_bytes !== null && r.verdict.over_by_bytes > 0) {
			const cut = [];
			if (r.listed.cover_count)
				cut.push("The " + r.listed.cover_count + " largest listed source ops (.remat copies once) hold the " + fmtBytes(r.verdict.over_by_bytes) + " to cut.");
			else
				cut.push("The listed allocations hold " + fmtPct(r.listed.share_of_over) + " of the " + fmtBytes(r.verdict.over_by_bytes) + " to cut; the rest is beyond the list.");
			if (r.listed.cover_scope)
				cut.push("Scope that covers it: " + r.listed.cover_scope);
			else if (r.listed.cover_scopes && r.listed.cover_scopes.length)
				cut.push("Scopes that together cover it: " + r.listed.cover_scopes.map(function (s) {
					return s.scope + " (" + fmtBytes(s.bytes) + ")";
				}).join(", "));
			if (r.listed.padding_bytes > 0)
				cut.push("Padding in the listed shapes: " + fmtBytes(r.listed.padding_bytes) + ".");
			r.relayouts.slice(0, 3).forEach(function (x) {
				const a = r.allocations.find(function (y) { return y.rank === x.rank; });
				const d = a.layout.dims;
				cut.push("#" + x.rank + " with dimensions " + x.second_minor_dimension + " (" + d[x.second_minor_dimension].size + ") and " +
					x.minor_dimension + " (" + d[x.minor_dimension].size + ") as the two most minor: " + a.layout.tiles +
					" pads it to " + fmtBytes(x.padded_bytes) + ", saving " + fmtBytes(x.saves_bytes) + ".");
			});
			r.splits.forEach(function (s) {
				cut.push("Split #" + s.rank + " along dimension " + s.dimension + " " + s.ways + " ways: saves at least " + fmtBytes(s.saves_at_least_bytes) + " (an estimate).");
			});
			sec.appendChild(el("h3", {}, "What to cut"));
			sec.appendChild(el("ul", {}, cut.map(function (t) { return el("li", {}, t); })));
		}
	},

	/* One bar of stacked allocations, the largest at the bottom. */
	tower: function (r, card) {
		const W = 260, H = 420, total = r.listed.bytes || 1;
		const s = svg("svg", { width: W + 60, height: H + 20, class: "chart oom-tower" });
		let y = H + 10;
		r.allocations.forEach(function (a, i) {
			const bytes = (a.size && a.size.bytes) || 0;
			const h = Math.max(1, bytes / total * H);
			y -= h;
			const g = svg("g", { class: "band", "data-index": i });
			const rect = svg("rect", { x: 40, y: y, width: W - 40, height: h, fill: hashColor(a.op_name || a.xla_label_name || String(i)) });
			const t = svg("title", {});
			t.textContent = "#" + a.rank + " " + (a.size ? a.size.text : "?") + " " + (a.shape || "");
			rect.appendChild(t);
			g.appendChild(rect);
			if (h > 13) {
				const lab = svg("text", { x: 46, y: y + h / 2 + 4, class: "band-label" });
				lab.textContent = "#" + a.rank + " " + (a.size ? a.size.text : "");
				g.appendChild(lab);
			}
			g.addEventListener("click", function () {
				s.querySelectorAll(".band").forEach(function (b) { b.classList.toggle("pinned", b === g); });
				OomView.card(card, r, i);
			});
			s.appendChild(g);
		});
		return el("div", {}, s);
	},

	card: function (c, r, i) {
		clear(c);
		if (i === null) {
			c.appendChild(el("p", { class: "muted" }, "Click an allocation in the tower to pin its card here."));
			return;
		}
		const a = r.allocations[i];
		c.appendChild(el("h3", { class: "card-title" }, "#" + a.rank + " " + (a.xla_label_name || a.shape || "")));
		const dl = c.appendChild(el("dl", { class: "fields" }));
		function field(k, v) {
			if (v === null || v === undefined || v === "")
				return;
			dl.appendChild(el("dt", {}, k));
			dl.appendChild(el("dd", { "data-field": k }, el("span", { class: "val" }, String(v)), copyButton(String(v), "copy " + k)));
		}
		field("size", a.size && a.size.text);
		field("shape", a.shape);
		if (a.layout) {
			const padded = a.layout.dims.map(function (d, k) { return d.padded !== d.size ? "dim " + k + " (" + d.size + ") → " + d.padded : null; })
				.filter(function (x) { return x; });
			field("tiles", a.layout.tiles);
			field("padded dimensions", padded.join(", "));
		}
		field("unpadded", a.unpadded && a.unpadded.text);
		field("padding", a.padding && (a.padding.text + (a.expansion ? " (" + a.expansion + "x expansion)" : "")));
		field("op type", a.op_type);
		field("op name", a.op_name);
		field("source", a.source_file && (a.source_file + ":" + a.source_line));
		field("instruction", a.xla_label_name);
		field("rematerialized copy of", a.remat_of);
		field("XLA label", a.xla_label);
		field("allocation type", a.allocation_type);
	},
};
