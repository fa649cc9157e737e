/* The page: read the data, build the views the data allow, follow deep
 * links (#view=, #buffer=NAME[&module=ID], #op=NAME, #scope=PATH). */

/* The data's tables back into arrays of objects (src/report/html/
 * html_pack.c writes arrays of like objects as columns and rows). */
function unpack(v) {
	if (Array.isArray(v))
		return v.map(unpack);
	if (v === null || typeof v !== "object")
		return v;
	const cols = v.tp_columns, rows = v.tp_rows, consts = v.tp_constants || {};
	if (cols && rows && Object.keys(v).length === (v.tp_constants ? 3 : 2)) {
		/* a column the same in every row is given once, in tp_constants */
		const n = cols.length, out = new Array(rows.length);
		const kept = cols.map(function (k) { return !Object.prototype.hasOwnProperty.call(consts, k); });
		for (let i = 0; i < rows.length; i++) {
			const r = rows[i], o = {};
			for (let j = 0, c = 0; j < n; j++)
				o[cols[j]] = kept[j] ? unpack(r[c++]) : consts[cols[j]];
			out[i] = o;
		}
		return out;
	}
	for (const k in v)
		v[k] = unpack(v[k]);
	return v;
}

const App = {
	views: [],
	made: {},

	has: function (id) {
		return this.views.some(function (v) { return v.id === id; });
	},

	/* Whether the ops table has an op of this name (built on first use). */
	hasOp: function (name) {
		if (!this.opNames) {
			const names = this.opNames = new Set();
			((this.data.ops && this.data.ops.cores) || []).forEach(function (c) {
				(c.ops || []).forEach(function (o) { names.add(o.name); });
			});
		}
		return this.has("ops") && this.opNames.has(name);
	},

	start: function () {
		const raw = unpack(JSON.parse(document.getElementById("tp-data").textContent));
		const D = this.data = this.normalise(raw);
		const app = clear(document.getElementById("app"));
		const head = app.appendChild(el("header", { class: "top" }));
		head.appendChild(el("span", { class: "brand" }, "tpuprof"));
		head.appendChild(el("span", { class: "title" }, D.title));
		this.tabs = head.appendChild(el("nav", { class: "tabs" }));
		this.main = app.appendChild(el("main", {}));
		const V = this.views;
		if (D.page === "diff")
			V.push({ id: "diff", title: "Diff", make: function (r) { DiffView.init(r, D.diff, D.memoryA, D.memoryB); } });
		if (D.page === "oom")
			V.push({ id: "oom", title: "Out of memory", make: function (r) { OomView.init(r, D.oom); } });
		if (D.page === "report" || D.page === "memory")
			V.push({ id: "summary", title: "Summary", make: function (r) { SummaryView.init(r, D); } });
		if (D.memory)
			V.push({ id: "memory", title: "Memory", make: function (r) { MemoryView.init(r, D.memory); } });
		if (D.memory || D.opScopes)
			V.push({ id: "scopes", title: "Scopes", make: function (r) { ScopesView.init(r, D.memory, D.opScopes); } });
		if (D.ops)
			V.push({ id: "ops", title: "Ops", make: function (r) { OpsView.init(r, D.ops, D.collectives, D.fused); } });
		const self = this;
		V.forEach(function (v) {
			v.tab = self.tabs.appendChild(el("a", { href: "#view=" + v.id, class: "tab", id: "tab-" + v.id }, v.title));
			v.root = self.main.appendChild(el("section", { class: "view", id: "view-" + v.id, hidden: true }));
		});
		window.addEventListener("hashchange", function () { self.route(); });
		this.route();
		document.body.setAttribute("data-ready", "1");
	},

	/* The documents of any page under one set of names. */
	normalise: function (raw) {
		const r = raw.report || {};
		const D = {
			page: raw.page, diff: raw.diff, oom: raw.oom || null, memoryA: raw.memory_a, memoryB: raw.memory_b,
			info: r.info || null, memory: r.memory || raw.memory || null,
			ops: r.ops || raw.ops || null, opScopes: r.op_scopes || raw.op_scopes || null,
			collectives: r.collectives || raw.collectives || null, fused: raw.fused || {},
			warnings: r.warnings || (raw.memory && raw.memory.warnings) || [],
			advice: r.advice || null,
		};
		const what = { report: "report", memory: "memory", ops: "ops", diff: "diff" }[raw.page] || raw.page;
		let where = "";
		if ((raw.sources || []).length)
			where = raw.sources.join(", ");
		else if (D.oom)
			where = D.oom.inputs.map(function (x) { return x.path; }).join(", ");
		else if (D.diff)
			where = D.diff.a + " → " + D.diff.b;
		D.title = what + (where ? ": " + where : "");
		document.title = "tpuprof " + D.title;
		return D;
	},

	show: function (id) {
		const v = this.views.find(function (x) { return x.id === id; }) || this.views[0];
		if (!v)
			return null;
		if (!this.made[v.id]) {
			this.made[v.id] = true;
			v.root.hidden = false;
			v.make(v.root);
		}
		this.views.forEach(function (x) {
			x.root.hidden = x !== v;
			x.tab.classList.toggle("active", x === v);
		});
		this.current = v.id;
		return v;
	},

	route: function () {
		const h = parseHash();
		try {
			if (h.buffer !== undefined && this.has("memory")) {
				this.show("memory");
				const f = findBuffer(this.data.memory, h.buffer, h.module);
				if (f)
					MemoryView.pin(f.module, f.index);
				else
					MemoryView.notFound(h.buffer);
			} else if (h.op !== undefined && this.has("ops")) {
				this.show("ops");
				OpsView.setOp(h.op);
			} else if (h.scope !== undefined && this.has("scopes")) {
				this.show("scopes");
				ScopesView.reveal(h.scope);
			} else {
				this.show(h.view);
				if (h.view === "memory" && h.module) {
					const mi = findModule(this.data.memory, h.module);
					if (mi >= 0)
						MemoryView.selectModule(mi);
				}
				if (h.color && this.current === "memory") {
					MemoryView.state.colorBy = h.color;
					MemoryView.colorSelect.value = h.color;
					MemoryView.renderModule();
				}
			}
		} catch (e) {
			tpShowError(errText(e));
		}
	},
};

MemoryView.notFound = function (name) {
	this.state.pinned = null;
	clear(this.card).appendChild(el("p", { class: "warn" }, "No buffer named " + name + " is live at a peak in this page."));
};

document.addEventListener("DOMContentLoaded", function () {
	try {
		App.start();
	} catch (e) {
		tpShowError(errText(e));
	}
});
