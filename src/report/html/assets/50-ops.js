/* Ops view: every op in one table that sorts by any column and filters
 * by text, scope, category, module and core, with totals of the rows that
 * pass. A select beside the filter shows the ops summed over the cores
 * that ran the same programs (all cores, the default, as `ops` text),
 * one row per op per core, or program -> category -> op summed over the
 * cores (with name.N copies folded on request, as `ops --by category
 * --fold`); the sums are made here from the per-core rows, so the page's
 * data holds each op once. Only the rows in sight are in the DOM, so
 * 100,000 ops scroll as fast as 100. Fusions open into the ops fused into
 * them; collectives carry their groups, bytes and bandwidth. */

const ROW_H = 22;

const OP_COLUMNS = [
	{ key: "name", title: "op", w: "minmax(220px,2fr)", str: true },
	{ key: "module", title: "module", w: "minmax(120px,1fr)", str: true },
	{ key: "core", title: "core", w: "minmax(90px,0.7fr)", str: true },
	/* summed views: the cores an op ran on and the least..most self
	 * time one of them gave it (sorted by most - least) */
	{ key: "n_cores", title: "on cores", w: "78px", fmt: fmtInt },
	{ key: "spread_ps", title: "spread", w: "150px", text: function (r) {
		return r.n_cores > 1 ? fmtPs(r.min_core) + ".." + fmtPs(r.max_core) : "-";
	} },
	{ key: "category", title: "category", w: "minmax(110px,1fr)", str: true },
	{ key: "occurrences", title: "count", w: "70px", fmt: fmtInt },
	{ key: "total_ps", title: "total", w: "86px", fmt: fmtPs },
	{ key: "self_ps", title: "self", w: "86px", fmt: fmtPs },
	{ key: "avg_ps", title: "avg", w: "80px", fmt: fmtPs },
	{ key: "min_ps", title: "min", w: "80px", fmt: fmtPs },
	{ key: "device_share", title: "device %", w: "72px", fmt: fmtPct },
	{ key: "scope", title: "scope", w: "minmax(200px,2fr)", str: true },
	{ key: "flops_per_s", title: "FLOP/s", w: "90px", fmt: function (v) { return fmtRate(v, ""); } },
	{ key: "bytes_per_s", title: "bytes/s", w: "90px", fmt: function (v) { return fmtRate(v, "B/s"); } },
	/* where FLOPs and bytes come from: the capture's cost model, or a
	 * custom call's kernel author's estimate */
	{ key: "cost_source", title: "FLOPs/bytes from", w: "110px", str: true },
	{ key: "group", title: "groups", w: "110px", str: true },
	{ key: "coll_bytes", title: "coll. bytes", w: "90px", fmt: fmtBytes },
	{ key: "coll_bw", title: "coll. bandwidth", w: "110px", fmt: function (v) { return fmtRate(v, "B/s"); } },
	{ key: "source", title: "source", w: "minmax(140px,1fr)", str: true },
];
const OP_GRID = "22px " + OP_COLUMNS.map(function (c) { return c.w; }).join(" ");

/* One row per op per core, with the collective it is (if any) joined by
 * program id and instruction (or the fusion or -done that times it). */
function opRows(ops, coll, fused) {
	const byKey = new Map();
	((coll && coll.collectives) || []).forEach(function (c) {
		[c.name, c.fusion, c.done].forEach(function (n) {
			if (n)
				byKey.set(c.program_id + "\u0000" + n, c);
		});
	});
	const rows = [];
	const hosts = new Set(((ops && ops.cores) || []).map(function (c) { return c.host; }));
	((ops && ops.cores) || []).forEach(function (core, ci) {
		/* the host only when there are several */
		const ck = hosts.size > 1 ? coreKey(core.host, core.plane) : shortPlane(core.plane);
		(core.ops || []).forEach(function (o) {
			const c = byKey.get(o.program_id + "\u0000" + o.name) || null;
			const f = fused && o.program_id && fused[o.program_id] ? fused[o.program_id][o.name] : null;
			rows.push({
				id: rows.length, name: o.name, module: o.module || "", program_id: o.program_id,
				core: ck, host: core.host, plane: core.plane, category: o.category || "",
				scope: o.scope || "", source: o.source || "", collective: o.collective,
				occurrences: o.occurrences, total_ps: o.total_ps, self_ps: o.self_ps, min_ps: o.min_ps,
				avg_ps: o.avg_ps, device_share: o.device_share, flops: o.flops,
				bytes_accessed: o.bytes_accessed, flops_per_s: o.flops_per_s, bytes_per_s: o.bytes_per_s,
				cost_source: o.cost_source === "custom_call_estimate" ? "kernel author's estimate" :
					o.cost_source === "cost_model" ? "cost model" : "",
				group: c ? (c.group_size ? c.group_size + " × " : "") + (c.replica_groups_text || c.mode || "") : "",
				coll_bytes: c ? c.bytes : null, coll_bw: c ? c.achieved_bytes_per_s : null,
				coll: c, fused: f || null, ci: ci,
			});
		});
	});
	return rows;
}

/* "copy-done.4" -> "copy-done", as `ops --fold` folds names. */
function foldName(n) {
	const m = /^(.+)\.\d+$/.exec(n);
	return m ? m[1] : n;
}

/* Rows summed by key(r): counts, times, FLOPs, bytes; min the least; per
 * core its self time (pcCore[i], pcSelf[i]: a few cores per op, so
 * arrays), for the spread; the distinct names summed (folding). */
function sumRows(rows, key) {
	const at = new Map(), out = [];
	for (let n = 0; n < rows.length; n++) {
		const r = rows[n], k = key(r);
		let a = at.get(k);
		if (a === undefined) {
			/* the fields of one row, spelled out: one object shape, made
			 * fast for 100,000 rows */
			a = { id: out.length, name: r.name, module: r.module, program_id: r.program_id, core: r.core,
				host: r.host, plane: r.plane, category: r.category, scope: r.scope, source: r.source,
				collective: r.collective, cost_source: r.cost_source, group: r.group,
				coll_bytes: r.coll_bytes, coll_bw: r.coll_bw, coll: r.coll, fused: r.fused, ci: r.ci,
				occurrences: 0, total_ps: 0, self_ps: 0, min_ps: r.min_ps, avg_ps: 0, device_share: null,
				flops: null, bytes_accessed: null, flops_per_s: null, bytes_per_s: null,
				pcCore: [], pcSelf: [], n_names: 1, nameSet: null, rated: true, n_cores: 0, min_core: 0,
				max_core: 0, spread_ps: 0, cores_title: null };
			at.set(k, a);
			out.push(a);
		}
		a.occurrences += r.occurrences;
		a.total_ps += r.total_ps;
		a.self_ps += r.self_ps;
		if (r.min_ps < a.min_ps)
			a.min_ps = r.min_ps;
		if (r.flops !== null && r.flops !== undefined)
			a.flops = (a.flops || 0) + r.flops;
		if (r.bytes_accessed !== null && r.bytes_accessed !== undefined)
			a.bytes_accessed = (a.bytes_accessed || 0) + r.bytes_accessed;
		a.rated = a.rated && r.flops_per_s !== null;
		if (r.name !== a.name) {   /* names folded into one: a set only then */
			if (!a.nameSet)
				a.nameSet = new Set([a.name]);
			a.nameSet.add(r.name);
			a.n_names = a.nameSet.size;
		}
		const cs = r.pcCore || [r.ci], ss = r.pcSelf || [r.self_ps];
		for (let c = 0; c < cs.length; c++) {
			const at_c = a.pcCore.indexOf(cs[c]);
			if (at_c < 0) {
				a.pcCore.push(cs[c]);
				a.pcSelf.push(ss[c]);
			} else {
				a.pcSelf[at_c] += ss[c];
			}
		}
	}
	for (let n = 0; n < out.length; n++) {
		const a = out[n], v = a.pcSelf;
		let lo = v[0], hi = v[0];
		for (let c = 1; c < v.length; c++) {
			lo = v[c] < lo ? v[c] : lo;
			hi = v[c] > hi ? v[c] : hi;
		}
		a.n_cores = v.length;
		a.min_core = lo;
		a.max_core = hi;
		a.spread_ps = hi - lo;
		a.avg_ps = a.occurrences ? Math.floor(a.total_ps / a.occurrences) : 0;
		a.flops_per_s = a.rated && a.flops !== null && a.total_ps ? a.flops / (a.total_ps * 1e-12) : null;
		a.bytes_per_s = a.rated && a.bytes_accessed !== null && a.total_ps ? a.bytes_accessed / (a.total_ps * 1e-12) : null;
		a.fused = a.n_names > 1 ? null : a.fused;
		a.nameSet = null;
	}
	return out;
}

/* The all-cores rows, as `ops` sums them (docs/ops.md): each program goes
 * to the group of the cores that ran it; an op is summed over its group;
 * a group of several cores none of whose ops ran on two of them (TF-era
 * replicas) stays per core. Its share is of the group's summed device
 * time. */
function allCoreRows(rows, cores) {
	const ran = new Map();
	rows.forEach(function (r) {
		const k = String(r.program_id);
		if (!ran.has(k))
			ran.set(k, new Set());
		ran.get(k).add(r.ci);
	});
	const groupOf = new Map();
	ran.forEach(function (set, k) {
		groupOf.set(k, Array.from(set).sort(function (a, b) { return a - b; }).join(","));
	});
	function opKey(g, r) { return g + "\u0000" + r.program_id + "\u0000" + r.category + "\u0000" + r.name; }
	let sums = sumRows(rows, function (r) { return opKey(groupOf.get(String(r.program_id)), r); });
	const shared = new Set();
	sums.forEach(function (a) {
		if (a.n_cores > 1)
			shared.add(groupOf.get(String(a.program_id)));
	});
	function group(r) {
		const g = groupOf.get(String(r.program_id));
		return shared.has(g) || g.indexOf(",") < 0 ? g : String(r.ci);
	}
	/* rare (TF replicas): summed again with those groups per core */
	if (Array.from(new Set(groupOf.values())).some(function (g) { return g.indexOf(",") >= 0 && !shared.has(g); }))
		sums = sumRows(rows, function (r) { return opKey(group(r), r); });
	const groups = new Map();   /* its cores' device time and names, once */
	sums.forEach(function (a) {
		const k = group(a);
		let g = groups.get(k);
		if (!g) {
			const list = k.split(",").map(Number);
			g = { dev: 0, n: list.length, title: list.map(function (c) { return shortPlane(cores[c].plane); }).join(", ") };
			list.forEach(function (c) { g.dev += cores[c].device_ps; });
			groups.set(k, g);
		}
		a.device_share = g.dev > 0 ? a.self_ps / g.dev : null;
		a.core = g.n > 1 ? g.n + " cores" : a.core;
		a.cores_title = g.title;
	});
	return sums;
}

const OpsView = {
	state: { text: "", scope: "", category: "", module: "", core: "", op: "", collectivesOnly: false,
		 sort: "total_ps", desc: true, view: "all", fold: false },

	init: function (root, ops, coll, fused) {
		this.root = root;
		this.cores = (ops && ops.cores) || [];
		this.perCore = opRows(ops, coll, fused);
		this.rows = this.viewRows();
		this.expanded = new Set();
		window.tpOps = { total: this.rows.length, shown: 0 };
		root.appendChild(this.filters());
		this.totals = root.appendChild(el("div", { class: "totals", id: "ops-totals" }));
		const scroller = el("div", { class: "vt", id: "ops-table", tabindex: "0" });
		this.head = scroller.appendChild(this.header());
		this.sizer = scroller.appendChild(el("div", { class: "vt-sizer" }));
		this.body = this.sizer.appendChild(el("div", { class: "vt-rows" }));
		root.appendChild(scroller);
		this.scroller = scroller;
		const self = this;
		let pending = false;
		scroller.addEventListener("scroll", function () {
			if (pending)
				return;
			pending = true;
			requestAnimationFrame(function () { pending = false; self.paint(); });
		});
		window.addEventListener("resize", function () { self.paint(); });
		this.apply();
	},

	/* The rows of the view chosen: made once each. */
	viewRows: function () {
		const s = this.state;
		if (!this.made)
			this.made = {};
		const k = s.view === "category" ? "category" + (s.fold ? "-fold" : "") : s.view;
		if (!this.made[k]) {
			if (s.view === "per-core")
				this.made[k] = this.perCore;
			else if (s.view === "all")
				this.made[k] = allCoreRows(this.perCore, this.cores);
			else
				this.made[k] = sumRows(this.perCore, function (r) {
					return r.program_id + "\u0000" + r.category + "\u0000" + (s.fold ? foldName(r.name) : r.name);
				}).map(function (a) {
					a.name = s.fold ? foldName(a.name) : a.name;
					a.core = a.n_cores > 1 ? a.n_cores + " cores" : a.core;
					a.device_share = null;
					return a;
				});
		}
		return this.made[k];
	},

	setView: function (view, fold) {
		this.state.view = view;
		this.state.fold = !!fold;
		this.rows = this.viewRows();
		this.ranked = null;
		this.expanded = new Set();
		this.state.core = "";
		this.fillSelect(this.ops_core, "core", "cores");
		window.tpOps.total = this.rows.length;
		this.apply();
	},

	fillSelect: function (s, key, label) {
		const vals = Array.from(new Set(this.rows.map(function (r) { return r[key]; }))).filter(Boolean).sort();
		clear(s).appendChild(el("option", { value: "" }, "all " + label));
		vals.forEach(function (v) { s.appendChild(el("option", { value: v }, v)); });
	},

	filters: function () {
		const self = this;
		function select(id, key, label) {
			const s = el("select", { id: id, title: label });
			self.fillSelect(s, key, label);
			s.addEventListener("change", function () { self.state[key] = s.value; self.apply(); });
			self[id] = s;
			return s;
		}
		function input(id, key, ph) {
			const i = el("input", { id: id, type: "search", placeholder: ph, size: 24 });
			let timer = 0;
			i.addEventListener("input", function () {
				clearTimeout(timer);
				timer = setTimeout(function () { self.state[key] = i.value; self.apply(); }, 120);
			});
			self[id] = i;
			return i;
		}
		const coll = el("input", { type: "checkbox", id: "ops-coll" });
		coll.addEventListener("change", function () { self.state.collectivesOnly = coll.checked; self.apply(); });
		this.opChip = el("span", { class: "opchip", id: "ops-op" });
		/* all cores by default, as `ops` text: one row per op however
		 * many cores ran it; per core and by category a choice away */
		const view = el("select", { id: "ops-view", title: "rows" },
			el("option", { value: "all" }, "ops summed over cores"),
			el("option", { value: "per-core" }, "ops per core"),
			el("option", { value: "category" }, "program › category › op"));
		const fold = el("input", { type: "checkbox", id: "ops-fold" });
		const foldLabel = el("label", { title: "copy-done.2, copy-done.4: copy-done (as ops --fold)", hidden: true },
			fold, " fold name.N");
		view.addEventListener("change", function () {
			foldLabel.hidden = view.value !== "category";
			self.setView(view.value, fold.checked);
		});
		fold.addEventListener("change", function () { self.setView(view.value, fold.checked); });
		this.viewSelect = view;
		return el("div", { class: "toolbar" },
			view, foldLabel,
			input("ops_text", "text", "filter: op, scope, category, source"),
			input("ops_scope", "scope", "scope contains"),
			select("ops_category", "category", "categories"),
			select("ops_module", "module", "modules"),
			select("ops_core", "core", "cores"),
			el("label", {}, coll, " collectives only"), this.opChip);
	},

	header: function () {
		const self = this;
		const h = el("div", { class: "vt-head", style: "grid-template-columns:" + OP_GRID }, el("div", {}, ""));
		OP_COLUMNS.forEach(function (c) {
			const cell = el("div", { class: "sortable" + (c.str ? "" : " num"), "data-key": c.key, title: "sort by " + c.title }, c.title);
			cell.addEventListener("click", function () {
				if (self.state.sort === c.key)
					self.state.desc = !self.state.desc;
				else {
					self.state.sort = c.key;
					self.state.desc = !c.str;
				}
				self.apply();
			});
			h.appendChild(cell);
		});
		return h;
	},

	/* The exact-op filter of a #op=NAME link. */
	setOp: function (name) {
		this.state.op = name || "";
		clear(this.opChip);
		if (name) {
			const self = this;
			this.opChip.append("op = " + name + " ", el("button", { class: "copy", onclick: function () { self.setOp(""); } }, "clear"));
		}
		this.apply();
	},

	setScope: function (path) {
		this.ops_scope.value = path;
		this.state.scope = path;
		this.apply();
	},

	matches: function (r) {
		const s = this.state;
		if (s.op && r.name !== s.op)
			return false;
		if (s.category && r.category !== s.category)
			return false;
		if (s.module && r.module !== s.module)
			return false;
		if (s.core && r.core !== s.core)
			return false;
		if (s.collectivesOnly && !r.collective)
			return false;
		if (s.scope && !r.scope.toLowerCase().includes(s.scope.toLowerCase()))
			return false;
		if (s.text) {
			const q = s.text.toLowerCase();
			if (!(r.name.toLowerCase().includes(q) || r.scope.toLowerCase().includes(q) ||
			      r.category.toLowerCase().includes(q) || r.source.toLowerCase().includes(q) ||
			      r.module.toLowerCase().includes(q)))
				return false;
		}
		return true;
	},

	apply: function () {
		const self = this, s = this.state;
		const col = OP_COLUMNS.find(function (c) { return c.key === s.sort; });
		const dir = s.desc ? -1 : 1;
		this.filtered = this.rows.filter(function (r) { return self.matches(r); });
		/* strings sort by their rank among the column's distinct values
		 * (code-point order, as the CLI's --sort name): numbers compare
		 * many times faster than strings on 100,000 rows */
		const key = col && col.str ? this.rank(s.sort) : s.sort;
		const name = this.rank("name");
		this.filtered.sort(function (a, b) {
			let x = a[key], y = b[key];
			x = x === null || x === undefined ? -Infinity : x;
			y = y === null || y === undefined ? -Infinity : y;
			return (x < y ? -1 : x > y ? 1 : 0) * dir || a[name] - b[name] || a.id - b.id;
		});
		this.head.querySelectorAll(".sortable").forEach(function (h) {
			h.classList.toggle("sorted", h.getAttribute("data-key") === s.sort);
			h.setAttribute("data-dir", h.getAttribute("data-key") === s.sort ? (s.desc ? "desc" : "asc") : "");
		});
		this.layout();
		this.renderTotals();
		window.tpOps.shown = this.filtered.length;
		this.scroller.scrollTop = 0;
		this.paint();
	},

	/* The field holding each row's rank in column key, made once. */
	rank: function (key) {
		const field = "rank_" + key;
		if (!this.ranked)
			this.ranked = {};
		if (!this.ranked[key]) {
			const values = Array.from(new Set(this.rows.map(function (r) { return r[key] || ""; }))).sort();
			const at = new Map();
			values.forEach(function (v, i) { at.set(v, i); });
			this.rows.forEach(function (r) { r[field] = at.get(r[key] || ""); });
			this.ranked[key] = true;
		}
		return field;
	},

	/* The display list: filtered rows, each open fusion followed by the
	 * instructions fused into it. */
	layout: function () {
		const list = [], self = this;
		if (this.state.view === "category")
			return this.layoutGroups();
		this.filtered.forEach(function (r) {
			list.push(r);
			if (r.fused && self.expanded.has(r.id))
				r.fused.forEach(function (f) { list.push({ child: true, parent: r, f: f }); });
		});
		this.display = list;
		this.sizer.style.height = list.length * ROW_H + "px";
	},

	/* program › category › op: programs by their self time, then
	 * categories by theirs (of the rows that pass), ops as sorted. */
	layoutGroups: function () {
		const progs = new Map();
		this.filtered.forEach(function (r) {
			const pk = String(r.program_id);
			if (!progs.has(pk))
				progs.set(pk, { module: r.module, program_id: r.program_id, self_ps: 0, total_ps: 0, occurrences: 0, cats: new Map() });
			const p = progs.get(pk);
			if (!p.cats.has(r.category))
				p.cats.set(r.category, { self_ps: 0, total_ps: 0, occurrences: 0, rows: [] });
			const c = p.cats.get(r.category);
			[p, c].forEach(function (x) {
				x.self_ps += r.self_ps;
				x.total_ps += r.total_ps;
				x.occurrences += r.occurrences;
			});
			c.rows.push(r);
		});
		function bySelf(a, b) { return b.self_ps - a.self_ps; }
		const list = [];
		Array.from(progs.values()).sort(bySelf).forEach(function (p) {
			list.push({ header: 0, label: (p.module || "(no module)") + (p.program_id ? " (program " + p.program_id + ")" : ""), s: p });
			Array.from(p.cats.entries()).map(function (e) { e[1].name = e[0]; return e[1]; }).sort(bySelf).forEach(function (c) {
				list.push({ header: 1, label: c.name || "(none)", s: c });
				c.rows.forEach(function (r) { list.push(r); });
			});
		});
		this.display = list;
		this.sizer.style.height = list.length * ROW_H + "px";
	},

	renderTotals: function () {
		const t = { occurrences: 0, total_ps: 0, self_ps: 0, flops: 0, bytes_accessed: 0 };
		const rows = this.filtered;
		for (let i = 0; i < rows.length; i++) {
			const r = rows[i];
			t.occurrences += r.occurrences || 0;
			t.total_ps += r.total_ps || 0;
			t.self_ps += r.self_ps || 0;
			t.flops += r.flops || 0;
			t.bytes_accessed += r.bytes_accessed || 0;
		}
		clear(this.totals).append(
			el("span", { id: "ops-count", "data-shown": this.filtered.length, "data-total": this.rows.length },
				fmtInt(this.filtered.length) + " of " + fmtInt(this.rows.length) + " ops"),
			" · count " + fmtInt(t.occurrences), " · total " + fmtPs(t.total_ps),
			" · self " + fmtPs(t.self_ps), " · FLOPs " + fmtRate(t.flops, ""),
			" · bytes accessed " + fmtBytes(t.bytes_accessed));
	},

	paint: function () {
		const top = this.scroller.scrollTop, h = this.scroller.clientHeight || 600;
		const first = Math.max(0, Math.floor(top / ROW_H) - 10);
		const last = Math.min(this.display.length, Math.ceil((top + h) / ROW_H) + 10);
		const body = clear(this.body);
		body.style.top = first * ROW_H + "px";
		for (let i = first; i < last; i++)
			body.appendChild(this.rowEl(this.display[i]));
	},

	rowEl: function (r) {
		const self = this;
		if (r.header !== undefined)
			return el("div", { class: "vt-row grp grp" + r.header, "data-group": r.label },
				el("div", { style: "padding-left:" + (6 + r.header * 16) + "px" },
					el("b", {}, r.label), "  self " + fmtPs(r.s.self_ps) + " · total " + fmtPs(r.s.total_ps) +
					" · count " + fmtInt(r.s.occurrences)));
		if (r.child) {
			const f = r.f;
			return el("div", { class: "vt-row child", style: "grid-template-columns:" + OP_GRID },
				el("div", {}, ""),
				el("div", { class: "span", style: "padding-left:" + (f[4] * 14) + "px" },
					"↳ ", el("b", {}, f[0]), "  ", el("span", { class: "opcode" }, f[1]), "  ",
					el("span", { class: "muted" }, f[2] || ""), "  ", el("span", { class: "scope" }, f[3] || "")));
		}
		const row = el("div", { class: "vt-row" + (r.collective ? " coll" : "") + (r.name === this.state.op ? " hit" : ""),
			style: "grid-template-columns:" + OP_GRID, "data-op": r.name });
		const tog = el("div", { class: "tog" });
		if (r.fused) {
			const open = this.expanded.has(r.id);
			tog.appendChild(el("button", { class: "twisty", title: open ? "close" : "show the " + r.fused.length + " fused instructions",
				onclick: function () {
					if (self.expanded.has(r.id))
						self.expanded.delete(r.id);
					else
						self.expanded.add(r.id);
					self.layout();
					self.paint();
				} }, open ? "▾" : "▸"));
		}
		row.appendChild(tog);
		OP_COLUMNS.forEach(function (c) {
			const v = r[c.key];
			let text = c.text ? (v === undefined ? "" : c.text(r)) :
				c.fmt ? (v === null || v === undefined || v === "" ? "" : c.fmt(v)) : v;
			if (c.key === "name" && self.state.fold && r.n_names > 1)
				text += "  (" + r.n_names + " names folded)";
			const cell = row.appendChild(el("div", { class: c.str ? "" : "num",
				title: c.key === "core" && r.cores_title ? r.cores_title : c.str ? v : String(v) }, text));
			if (c.key === "scope" && v && App.has("scopes")) {
				cell.classList.add("link");
				cell.title = "open " + v + " in the scope tree";
				cell.addEventListener("click", function () { App.show("scopes"); ScopesView.reveal(v); });
			}
		});
		return row;
	},
};
