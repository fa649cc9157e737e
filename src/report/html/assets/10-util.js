"use strict";
/* tpuprof page: shared helpers. The page is one script over the data in
 * #tp-data (docs/html.md); nothing is fetched. Errors are caught and shown
 * in a banner, and kept in window.tpErrors for the tests. */

window.tpErrors = [];
window.addEventListener("error", function (e) {
	tpShowError(String(e.message || e.error || e));
});

/* An exception as one readable text: Firefox's stack lacks the message. */
function errText(e) {
	if (!e || typeof e !== "object")
		return String(e);
	const head = (e.name || "Error") + ": " + (e.message || "");
	return e.stack && e.stack.indexOf(e.message) < 0 ? head + "\n" + e.stack : String(e.stack || head);
}

function tpShowError(msg) {
	window.tpErrors.push(msg);
	let b = document.getElementById("errors");
	if (!b) {
		b = el("div", { id: "errors", class: "errors" });
		document.body.prepend(b);
	}
	b.appendChild(el("div", {}, "page error: " + msg));
}

/* el("div", {class: "x", onclick: f}, child, "text", ...) */
function el(tag, attrs) {
	const e = document.createElement(tag);
	for (const k in attrs || {}) {
		const v = attrs[k];
		if (v === undefined || v === null || v === false)
			continue;
		if (k.startsWith("on"))
			e.addEventListener(k.slice(2), v);
		else if (k === "text")
			e.textContent = v;
		else
			e.setAttribute(k, v === true ? "" : v);
	}
	for (let i = 2; i < arguments.length; i++)
		append(e, arguments[i]);
	return e;
}

function append(e, c) {
	if (c === undefined || c === null || c === false)
		return;
	if (Array.isArray(c))
		c.forEach(function (x) { append(e, x); });
	else
		e.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
}

const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs) {
	const e = document.createElementNS(SVGNS, tag);
	for (const k in attrs || {}) {
		const v = attrs[k];
		if (v === undefined || v === null)
			continue;
		if (k.startsWith("on"))
			e.addEventListener(k.slice(2), v);
		else if (k === "text")
			e.textContent = v;
		else
			e.setAttribute(k, v);
	}
	for (let i = 2; i < arguments.length; i++)
		append(e, arguments[i]);
	return e;
}

function clear(e) {
	while (e.firstChild)
		e.removeChild(e.firstChild);
	return e;
}

/* As C's printf("%.*f") of the text output: toFixed rounds a value
 * exactly halfway between two outputs up, printf to the even one, so
 * 591.25 ns reads "591.2 ns" in the page as in text. Only exact ties
 * differ: a value is one when v * 2 * 10^d is an odd integer, decided on
 * v's exact binary value (v = m * 2^e). */
function isExactTie(a, d) {
	const view = new DataView(new ArrayBuffer(8));
	view.setFloat64(0, a);
	const hi = view.getUint32(0), exp = (hi >>> 20) & 0x7ff;
	let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
	let e = -1074;
	if (exp !== 0) {
		m |= 1n << 52n;
		e = exp - 1075;
	}
	if (e >= 0)
		return false;   /* an integer: never halfway */
	const num = m * 2n * 10n ** BigInt(d), den = 1n << BigInt(-e);
	return num % den === 0n && (num / den) % 2n === 1n;
}
function toFixedC(v, d) {
	const a = Math.abs(v), scaled = a * Math.pow(10, d), down = Math.floor(scaled);
	if (!isFinite(a) || scaled - down !== 0.5 || down % 2 !== 0 || !isExactTie(a, d))
		return v.toFixed(d);
	return (v < 0 ? "-" : "") + (down / Math.pow(10, d)).toFixed(d);
}

/* Binary units, exactly as the text output (src/util/units.c): 512 B,
 * 4.00 MiB, 20.6 MiB, 512 KiB. */
const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
function fmtBytes(b) {
	if (b === null || b === undefined)
		return "–";
	b = Number(b);
	const neg = b < 0;
	let v = Math.abs(b), u = 0;
	if (v < 1024)
		return (neg ? "-" : "") + v + " B";
	while (v >= 1024 && u < BYTE_UNITS.length - 1) {
		v /= 1024;
		u++;
	}
	return (neg ? "-" : "") + toFixedC(v, v < 10 ? 2 : v < 100 ? 1 : 0) + " " + BYTE_UNITS[u];
}

function fmtInt(n) {
	if (n === null || n === undefined)
		return "–";
	return Number(n).toLocaleString("en-US");
}

/* Exact bytes and their binary-unit reading: "4,194,304 B (4.00 MiB)". */
function fmtBytesExact(b) {
	if (b === null || b === undefined)
		return "–";
	return Math.abs(b) < 1024 ? fmtInt(b) + " B" : fmtInt(b) + " B (" + fmtBytes(b) + ")";
}

const TIME_UNITS = [["ps", 1], ["ns", 1e3], ["us", 1e6], ["ms", 1e9], ["s", 1e12]];
/* As the text output: 3 digits below 10, 2 below 100, else 1. */
function fmtPs(ps) {
	if (ps === null || ps === undefined)
		return "–";
	ps = Number(ps);
	const a = Math.abs(ps);
	if (a < 1e3)
		return ps + " ps";
	let u = 1;
	while (u < TIME_UNITS.length - 1 && a >= TIME_UNITS[u + 1][1])
		u++;
	const v = ps / TIME_UNITS[u][1], av = Math.abs(v);
	return fixedEven(ps, TIME_UNITS[u][1], av < 10 ? 3 : av < 100 ? 2 : 1) + " " + TIME_UNITS[u][0];
}

/* As the text's tp_fmt_ps (src/util/units.c): a whole number of ps in
 * units of scale to d decimals, rounded on the exact decimal value, an
 * exact halfway value to the even digit (50175000 ps: 50.18 us). */
function fixedEven(ps, scale, d) {
	if (!Number.isSafeInteger(ps))
		return toFixedC(ps / scale, d);
	const p10 = 10n ** BigInt(d), S = BigInt(scale);
	const a = BigInt(Math.abs(ps)), num = a * p10, r = num % S;
	let q = num / S;
	if (2n * r > S || (2n * r === S && q % 2n === 1n))
		q++;
	return (ps < 0 ? "-" : "") + (q / p10).toString() + "." + (q % p10).toString().padStart(d, "0");
}

/* A share of free memory (an upper bound): cut down, never rounded up,
 * as the text prints it ("99.9%" with 8 MiB of 80 GiB used). */
function fmtPctDown(x) {
	return x === null || x === undefined || !isFinite(x) ? "–" :
		toFixedC(Math.floor(1000 * x * (1 + 1e-12)) / 10, 1) + "%";
}

function fmtPct(x) {
	return x === null || x === undefined || !isFinite(x) ? "–" : toFixedC(100 * x, 1) + "%";
}

function fmtRate(x, unit) {
	if (x === null || x === undefined)
		return "–";
	const pre = ["", "K", "M", "G", "T", "P", "E"];
	let v = Number(x), i = 0;
	while (Math.abs(v) >= 1000 && i < pre.length - 1) {
		v /= 1000;
		i++;
	}
	return toFixedC(v, 2) + " " + pre[i] + unit;
}

/* Axis ticks: 1-2-5 steps in the unit the largest value reads in. */
function niceStep(span, want) {
	const raw = span / Math.max(1, want);
	const p = Math.pow(10, Math.floor(Math.log10(raw)));
	const m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* Byte ticks from 0 to at least max: {ticks: [bytes], top, label(v)}. */
function byteTicks(max, want) {
	max = Math.max(1, max);
	let u = 0;
	while (u < BYTE_UNITS.length - 1 && max >= Math.pow(1024, u + 1))
		u++;
	const unit = Math.pow(1024, u);
	const step = niceStep(max / unit, want || 5);
	const ticks = [];
	let top = 0;
	for (let v = 0; ; v += step) {
		ticks.push(v * unit);
		top = v * unit;
		if (top >= max)
			break;
	}
	const digits = step < 1 ? Math.min(3, Math.ceil(-Math.log10(step))) : 0;
	return {
		ticks: ticks, top: top,
		label: function (b) {
			return b === 0 ? "0" : (b / unit).toFixed(digits) + " " + BYTE_UNITS[u];
		},
	};
}

/* Time ticks over [0, span] ps, labels in one unit. */
function timeTicks(span, want) {
	span = Math.max(1, span);
	let u = 0;
	while (u < TIME_UNITS.length - 1 && span >= TIME_UNITS[u + 1][1])
		u++;
	const unit = TIME_UNITS[u][1];
	const step = niceStep(span / unit, want || 6);
	const ticks = [];
	for (let v = 0; v * unit <= span; v += step)
		ticks.push(v * unit);
	const digits = step < 1 ? Math.min(3, Math.ceil(-Math.log10(step))) : 0;
	return {
		ticks: ticks,
		label: function (ps) { return (ps / unit).toFixed(digits) + " " + TIME_UNITS[u][0]; },
	};
}

function intTicks(max, want) {
	max = Math.max(1, max);
	const step = Math.max(1, niceStep(max, want || 8));
	const ticks = [];
	for (let v = 0; v <= max; v += step)
		ticks.push(v);
	return ticks;
}

/* Copy to the clipboard; the fallback works where the API is refused
 * (some browsers treat file:// pages as insecure). */
function copyText(text, button) {
	function done(ok) {
		if (!button)
			return;
		const old = button.textContent;
		button.textContent = ok ? "copied" : "copy failed";
		setTimeout(function () { button.textContent = old; }, 900);
	}
	function fallback() {
		const t = el("textarea", { class: "offscreen" });
		t.value = text;
		document.body.appendChild(t);
		t.select();
		let ok = false;
		try {
			ok = document.execCommand("copy");
		} catch (e) {
			ok = false;
		}
		t.remove();
		done(ok);
	}
	if (navigator.clipboard && window.isSecureContext)
		navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
	else
		fallback();
}

function copyButton(text, title) {
	const b = el("button", { class: "copy", title: title || "copy" }, "copy");
	b.addEventListener("click", function (ev) {
		ev.stopPropagation();
		copyText(text, b);
	});
	return b;
}

/* Stable colours: a palette indexed by a string's hash. */
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#a0cbe8", "#8cd17d", "#f1ce63"];
function hashColor(s) {
	let h = 2166136261;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 16777619);
	}
	return PALETTE[(h >>> 0) % PALETTE.length];
}

const CATEGORY_COLORS = {
	Parameter: "#4e79a7", Output: "#59a14f", Temporary: "#f28e2b",
	Constant: "#b07aa1", "Thread-local": "#9c755f",
};
function categoryColor(c) {
	return CATEGORY_COLORS[c] || hashColor(c || "");
}

/* The deep-link part of the location: #view=memory&buffer=NAME. */
function parseHash() {
	const out = {};
	const h = location.hash.replace(/^#/, "");
	if (!h)
		return out;
	h.split("&").forEach(function (kv) {
		const i = kv.indexOf("=");
		const k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i));
		out[k] = i < 0 ? "" : decodeURIComponent(kv.slice(i + 1));
	});
	return out;
}

function linkTo(params) {
	return location.href.replace(/#.*$/, "") + "#" + Object.keys(params).map(function (k) {
		return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]);
	}).join("&");
}

function shortPlane(plane) {
	return String(plane || "").replace(/^\/device:/, "");
}

function coreKey(host, plane) {
	return host + " " + shortPlane(plane);
}

function sourceText(src) {
	if (!src)
		return null;
	if (typeof src === "string")
		return src;
	return src.file + (src.line ? ":" + src.line : "");
}
