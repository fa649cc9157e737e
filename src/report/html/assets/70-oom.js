/* The oom page (tpuprof oom --format html): per report the verdict and
 * its cause first, the budget bar (what is held against the capacity),
 * where the memory goes in words, the tower of listed allocations (click
 * one to pin its card, with copy buttons, as on the memory page) and the
 * listed bytes by name scope. */

/* The figures in words, as the text output names them. */
const OOM_LABELS = {
	used: "used", capacity: "capacity", exceeded: "over the capacity by",
	total_usage: "total usage (at least)", reserved: "runtime reservation", program: "program",
	arguments: "arguments", heap_allocations: "heap allocations", output: "output",
	output_shares_with_arguments: "output shared with the arguments",
	program_requirement: "program requirement", program_reserved: "program reserved",
	global: "global", scoped: "scoped", hlo_temp: "HLO temp (temporaries)", overlays: "overlays",
	hlo_temp_unpadded: "HLO temp unpadded", hlo_temp_padded: "HLO temp padded",
	hlo_temp_fragmentation: "HLO temp fragmentation", request: "request", free: "free",
	reserved_now: "reserved now", reservable: "reservable", largest_free_region: "largest free region",
	top_of_memory_reserved: "top-of-memory reserved",
	currently_allocated: "held by other buffers (currently allocated)",
	runtime_program_requirement: "program requirement (table)",
	available_after_request: "available after the request", max_free_chunk: "largest free chunk",
	persistent_arguments: "persistent arguments", persistent_output: "persistent output",
	ba_parameter: "BufferAssignment parameters", ba_constant: "BufferAssignment constants",
	ba_maybe_live_out: "BufferAssignment maybe-live-out",
	ba_preallocated_temp: "BufferAssignment preallocated temp", ba_total: "BufferAssignment total",
	ba_total_fragmentation: "BufferAssignment fragmentation", bfc_rounded: "rounded request",
	bfc_in_use_chunks: "in-use chunks", bfc_limit: "allocator limit", bfc_in_use: "allocator in use",
	bfc_max_in_use: "allocator max in use", tensorcore_usage: "TensorCore HBM usage",
	sparsecore_usage: "SparseCore HBM usage",
};

/* Where an overage comes from (verdict.over_by_source), in words, as the
 * text says it. */
const OOM_SOURCES = {
	"available_after_request": "the HBM capacity table's 'Available after request'",
	"request - reservable": "the request less 'reservable'",
	"request - free": "the request less 'free'",
	"request - largest_free_region": "the request less the largest free region",
};

/* A lower bound on what is needed in fmtBytes's style, rounded up so that
 * it still holds; with down, a saving's lower bound, rounded down.
 * Rounding up, the count is first taken 2 bytes toward zero: it comes from
 * printed sizes each rounded to a whole byte, and that must not make a
 * digit (4,907,000,136 bytes are 15.65G - 11.08G = 4.57 GiB, not 4.58). */
function fmtBytesUp(b, down) {
	b = Number(b);
	let v = Math.abs(b), u = 0;
	if (v < 1024)
		return fmtBytes(b);
	if ((b >= 0) !== !!down)
		v -= 2;
	while (v >= 1024 && u < BYTE_UNITS.length - 1) {
		v /= 1024;
		u++;
	}
	const d = v < 10 ? 2 : v < 100 ? 1 : 0, k = Math.pow(10, d);
	const up = (b >= 0) !== !!down ? Math.ceil(v * k - 1e-9) / k : Math.floor(v * k + 1e-9) / k;
	return (b < 0 ? "-" : "") + toFixedC(up, d) + " " + BYTE_UNITS[u];
}

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
		else if (F("tensorcore_usage") && F("sparsecore_usage"))
			s = "The TensorCore needs " + F("tensorcore_usage") + " and the SparseCore " + F("sparsecore_usage") + " of " + (F("capacity") || "?") + " " + (r.memory_space || "") + " available";
		else if (r.headless)
			s = "Out of " + (r.memory_space || "device memory") + " (the paste starts after the headline)";
		else
			s = "Out of memory (no sizes printed)";
		if (v.over_by_bytes !== null)
			s += (r.kind === "compile" ? ": over by " : ": short by ") + (v.over_by_derived ? fmtBytes(v.over_by_bytes) + " (derived)" :
				v.over_by_source === "available_after_request" ? F("available_after_request").replace(/^-/, "") : F("exceeded"));
		return s;
	},

	/* What decides the report, in words, and what to do about it. */
	cause: function (r) {
		const F = function (n) { return OomView.fig(r, n); }, v = r.verdict;
		/* the printed capacity, or for a headless paste the --device
		 * chip's HBM less the printed reservation */
		const cap = v.cause_capacity_source === "capacity" || v.cause_capacity_bytes === null ?
			"the capacity (" + F("capacity") + ")" :
			"what " + v.chip.candidates[0] + "'s HBM leaves them (" + fmtBytes(v.cause_capacity_bytes) + "; --device)";
		const act = "Shard the parameters or the optimizer state across devices, keep them in a smaller dtype (bf16 halves f32), or donate argument buffers the output replaces.";
		switch (v.cause) {
		case "arguments":
			return ["The arguments alone (" + F("arguments") + ") exceed " + cap + ": the parameters do not fit one device, so no cut to temporaries can help.", act];
		case "output":
			return ["The output alone (" + F("output") + ") exceeds " + cap + ": no cut to temporaries can help.",
				"Shard the output across devices, return less of it or in a smaller dtype, or donate an argument buffer it can reuse."];
		case "runtime_reservation":
			return ["The runtime reservation alone (" + F("reserved") + ") exceeds " + cap + "."];
		case "arguments_and_output":
			return ["The arguments (" + (F("arguments") || "not printed") + ") and output (" + (F("output") || "not printed") +
				"): the over-by is more than all the program's temporaries (" + fmtBytes(v.temporaries_bytes) + "), so no cut to temporaries alone can fit it.", act];
		case "temporaries":
			return ["The program's temporaries (" + (F("hlo_temp") || fmtBytes(v.temporaries_bytes)) + "): the arguments and output fit within the capacity, so cutting temporaries fits it (below)."];
		case "fragmentation":
			return ["Fragmentation: " + F("free") + " is free in all, but the largest free region is " + F("largest_free_region") + "."];
		}
		return [];
	},

	/* The capacity line against what is held: the reservation, the
	 * arguments, the output and the program's parts, as printed. */
	budget: function (r) {
		const b = r.budget, W = 900, H = 34, max = Math.max(b.total_bytes, b.line_bytes) || 1;
		const s = svg("svg", { width: W + 20, height: H + 46, class: "chart oom-budget" });
		let x = 10;
		b.parts.forEach(function (p) {
			const w = p.bytes / max * W;
			const rect = svg("rect", { x: x, y: 10, width: Math.max(w, 0.5), height: H, fill: hashColor(p.figure), class: "budget-part", "data-figure": p.figure });
			const t = svg("title", {});
			t.textContent = (OOM_LABELS[p.figure] || p.figure) + " " + fmtBytes(p.bytes);
			rect.appendChild(t);
			s.appendChild(rect);
			if (w > 70) {
				const lab = svg("text", { x: x + 4, y: 10 + H / 2 + 4, class: "band-label" });
				lab.textContent = (OOM_LABELS[p.figure] || p.figure).replace(/ \(.*\)/, "") + " " + fmtBytes(p.bytes);
				s.appendChild(lab);
			}
			x += w;
		});
		const lx = 10 + b.line_bytes / max * W;
		s.appendChild(svg("line", { x1: lx, x2: lx, y1: 2, y2: H + 18, class: "budget-line", stroke: "#c00", "stroke-width": 2 }));
		const cl = svg("text", { x: Math.min(lx, W - 150), y: H + 34, class: "budget-line-label" });
		cl.textContent = "capacity " + (OomView.fig(r, "capacity") || fmtBytes(b.line_bytes)) +
			(b.line_bytes !== (r.figures.capacity && r.figures.capacity.bytes) ? " + reservation" : "");
		s.appendChild(cl);
		const legend = el("p", { class: "muted oom-budget-legend" }, b.parts.map(function (p) {
			return (OOM_LABELS[p.figure] || p.figure) + " " + fmtBytes(p.bytes);
		}).join(" · ") + " = " + fmtBytes(b.total_bytes) + " against " + fmtBytes(b.line_bytes));
		return el("div", { class: "oom-budget-wrap" }, s, legend);
	},

	report: function (root, r, i, n) {
		const sec = root.appendChild(el("section", { class: "oom-report", id: "oom-report-" + (i + 1) }));
		sec.appendChild(el("h2", {}, "Report " + (i + 1) + " of " + n + ": " + r.input + " line " + r.line +
			" (" + (r.kind === "gpu" ? "GPU" : r.kind === "compile" ? "TPU compile time" : "TPU run time") + (r.memory_space ? ", " + r.memory_space : "") +
			(r.error_code ? ", " + r.error_code : "") + ")"));
		const cause = OomView.cause(r);
		if (cause.length)
			sec.appendChild(el("p", { class: "oom-cause" }, el("strong", {}, "Cause: "), cause[0]));
		sec.appendChild(el("p", { class: "verdict" }, OomView.verdict(r)));
		if (cause.length > 1)
			sec.appendChild(el("p", { class: "oom-action" }, cause[1]));
		if (r.verdict.over_by_alternative_bytes !== null)
			sec.appendChild(el("p", { class: "warn oom-disagree" }, "Two figures disagree: " + OOM_SOURCES[r.verdict.over_by_source] + " gives " +
				OomView.verdict(r).replace(/.*(over|short) by /, "") + ", " + OOM_SOURCES[r.verdict.over_by_alternative_source] + " gives " +
				fmtBytes(r.verdict.over_by_alternative_bytes) + "; tpuprof uses the first: the HBM capacity table counts bytes exactly and also takes off the top-of-memory reservation, which 'free' and 'reservable' still include."));
		if (r.headless)
			sec.appendChild(el("p", { class: "warn" }, "Headless: the text starts after the headline, so used, capacity and the overage are not printed (unknown, not guessed)" +
				(r.verdict.chip.forced && !r.figures.total_usage ? "; no total usage is printed, so --device derives nothing from the chip's HBM." :
					r.verdict.chip.candidates.length || !r.figures.total_usage ? "." : "; --device NAME compares the printed total usage with that chip's HBM.")));
		if (r.budget) {
			sec.appendChild(el("h3", {}, "Budget: what is held against the capacity"));
			sec.appendChild(OomView.budget(r));
		}
		const chip = r.verdict.chip;
		if (chip.candidates.length)
			sec.appendChild(el("p", {}, "Chip: " + chip.candidates.join(" or ") + " (" + fmtBytes(chip.device_bytes) + " per device; " + chip.basis + ")"));
		const rows = Object.keys(r.figures).map(function (k) {
			const f = r.figures[k];
			return el("tr", {}, el("td", { title: k }, OOM_LABELS[k] || k), el("td", { class: "num" }, f.text),
				el("td", { class: "num muted" }, f.bytes === null ? "" : fmtBytesExact(f.bytes)));
		});
		sec.appendChild(el("h3", {}, "Where it goes (as printed)"));
		sec.appendChild(el("table", { class: "plain oom-figures" }, el("tr", {}, el("th", {}, "figure"), el("th", {}, "printed"), el("th", {}, "bytes")), rows));
		if (r.missing.length)
			sec.appendChild(el("p", { class: "warn" }, "Not in the text (cut short?): " + r.missing.join(", ")));
		if (r.allocations.length)
			OomView.listed(sec, r);
		const fixed = ["arguments", "output", "runtime_reservation", "arguments_and_output"].indexOf(r.verdict.cause) >= 0;
		if (r.verdict.over_by_bytes !== null && r.verdict.over_by_bytes > 0 && fixed) {
			sec.appendChild(el("h3", {}, "What to cut"));
			sec.appendChild(el("ul", {}, el("li", {}, "Cut at least " + fmtBytesUp(r.verdict.over_by_bytes) + ", at least " +
				fmtBytesUp(r.verdict.fixed_cut_at_least_bytes) + " of it from the " + r.verdict.cause.replace(/_/g, " ") +
				" (the cause above); the listed allocations (" + fmtBytes(r.listed.bytes) + ") are temporaries and cannot make it up.")));
		} else if (r.verdict.over_by_bytes !== null && r.verdict.over_by_bytes > 0) {
			const cut = ["Cut at least " + fmtBytesUp(r.verdict.over_by_bytes) + "."];
			/* nothing listed: no claim about the list */
			if (r.allocations.length && r.listed.cover_count)
				cut.push("The " + r.listed.cover_count + " largest listed source ops (.remat copies once) hold the " + fmtBytesUp(r.verdict.over_by_bytes) + " to cut.");
			else if (r.allocations.length)
				cut.push("The listed allocations hold " + fmtPct(r.listed.share_of_over) + " of the " + fmtBytesUp(r.verdict.over_by_bytes) + " to cut; the rest is beyond the list.");
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
				cut.push("Split #" + s.rank + " along dimension " + s.dimension + " " + s.ways + " ways: saves at least " + fmtBytesUp(s.saves_at_least_bytes, true) + " (an estimate).");
			});
			sec.appendChild(el("h3", {}, "What to cut"));
			sec.appendChild(el("ul", {}, cut.map(function (t) { return el("li", {}, t); })));
		}
	},

	/* The listed allocations: the tower, its card, the scope roll-up. */
	listed: function (sec, r) {
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
	},

	/* One bar of stacked allocations, the largest at the bottom. */
	tower: function (r, card) {
		const W = 260, H = 420, total = r.listed.bytes || 1;
		const s = svg("svg", { width: W + 60, height: H + 20, class: "chart oom-tower" });
		let y = H + 10;
		/* the last entry cut short: its shape is not in the text (as the text says) */
		const cutLast = r.missing.indexOf("last_allocation_details") >= 0;
		r.allocations.forEach(function (a, i) {
			const bytes = (a.size && a.size.bytes) || 0;
			const h = Math.max(1, bytes / total * H);
			y -= h;
			const g = svg("g", { class: "band", "data-index": i });
			const rect = svg("rect", { x: 40, y: y, width: W - 40, height: h, fill: hashColor(a.op_name || a.xla_label_name || String(i)) });
			const t = svg("title", {});
			t.textContent = "#" + a.rank + " " + (a.size ? a.size.text : "?") + " " + (a.shape || a.entry_parameter_subshape ||
				(cutLast && i === r.allocations.length - 1 ? "(the entry is cut off here)" : "(shape not printed)"));
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
		field("entry parameter subshape", a.entry_parameter_subshape);
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
