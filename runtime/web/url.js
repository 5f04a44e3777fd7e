// URL and URLSearchParams (https://url.spec.whatwg.org/), as Node 20 has them.
// A group of coderun's web globals (runtime/web.go): evaluated on first use,
// it yields a factory of the group's globals. Hosts go through the spec's
// domain to ASCII with a subset of UTS #46's mapping (see idnaMap).
(function (lib) {
  "use strict";
  const TypeError_ = TypeError, String_ = String, fromCodePoint = String.fromCodePoint, ReflectApply = Reflect.apply;
  const ObjectDefineProperty = Object.defineProperty, iteratorSym = Symbol.iterator, floor = Math.floor;
  const toWellFormed = String.prototype.toWellFormed;
  const FAIL = null; // what a parser returns for failure

  // Percent-encode sets (https://url.spec.whatwg.org/#percent-encoded-bytes),
  // each as a predicate on a code point.
  const C0_SET = (c) => c < 0x20 || c > 0x7e;
  const FRAGMENT_SET = (c) => C0_SET(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
  const QUERY_SET = (c) => C0_SET(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
  const SPECIAL_QUERY_SET = (c) => QUERY_SET(c) || c === 0x27;
  const PATH_SET = (c) => QUERY_SET(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
  const USERINFO_SET = (c) => PATH_SET(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 ||
    (c >= 0x5b && c <= 0x5e) || c === 0x7c;
  const COMPONENT_SET = (c) => USERINFO_SET(c) || (c >= 0x24 && c <= 0x26) || c === 0x2b || c === 0x2c;
  const FORM_SET = (c) => COMPONENT_SET(c) || c === 0x21 || (c >= 0x27 && c <= 0x29) || c === 0x7e;
  const HEX = "0123456789ABCDEF";

  // toUSV converts v as Web IDL's USVString does: lone surrogates become U+FFFD.
  function toUSV(v) {
    if (typeof v === "symbol") throw new TypeError_("Cannot convert a Symbol value to a string");
    return ReflectApply(toWellFormed, String_(v), []);
  }
  function utf8(cp, out) {
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    return out;
  }
  // encodeCP percent-encodes code point cp if it is in set.
  function encodeCP(cp, set, spaceAsPlus) {
    if (spaceAsPlus && cp === 0x20) return "+";
    if (!set(cp)) return fromCodePoint(cp);
    const bytes = utf8(cp, []);
    let out = "";
    for (let i = 0; i < bytes.length; i++) out += "%" + HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
    return out;
  }
  // needs returns a regular expression that finds every code point set
  // encodes (each set encodes all but some printable ASCII), made once per set.
  const NEEDS = new Map();
  function needs(set) {
    let re = NEEDS.get(set);
    if (re === undefined) {
      let keep = "";
      for (let c = 0x20; c < 0x7f; c++) if (!set(c)) keep += "\\x" + c.toString(16);
      NEEDS.set(set, (re = new RegExp("[^" + keep + "]", "gu")));
    }
    return re;
  }
  // encode percent-encodes the code points of s (a USV string) in set.
  function encode(s, set, spaceAsPlus = false) {
    const re = needs(set);
    return s.search(re) < 0 ? s : s.replace(re, (ch) => encodeCP(ch.codePointAt(0), set, spaceAsPlus));
  }
  const isHex = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
  const hexVal = (c) => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  // percentDecode is https://url.spec.whatwg.org/#string-percent-decode then
  // UTF-8 decode without BOM, its errors as U+FFFD.
  function percentDecode(s) {
    if (!/[%\x80-\uffff]/.test(s)) return s;
    const b = [];
    for (let i = 0; i < s.length; i++) {
      const cp = s.codePointAt(i);
      if (cp > 0xffff) i++;
      if (cp === 0x25 && i + 2 < s.length && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2))) {
        b.push(hexVal(s.charCodeAt(i + 1)) * 16 + hexVal(s.charCodeAt(i + 2)));
        i += 2;
      } else utf8(cp, b);
    }
    const cps = [];
    for (let i = 0; i < b.length;) {
      const x = b[i];
      let n = 0, cp = 0, lo = 0x80, hi = 0xbf, j = 1;
      if (x < 0x80) { cps.push(x); i++; continue; }
      if (x >= 0xc2 && x <= 0xdf) { n = 1; cp = x & 0x1f; }
      else if (x >= 0xe0 && x <= 0xef) { n = 2; cp = x & 0xf; lo = x === 0xe0 ? 0xa0 : lo; hi = x === 0xed ? 0x9f : hi; }
      else if (x >= 0xf0 && x <= 0xf4) { n = 3; cp = x & 7; lo = x === 0xf0 ? 0x90 : lo; hi = x === 0xf4 ? 0x8f : hi; }
      for (; j <= n; j++, lo = 0x80, hi = 0xbf) {
        const y = b[i + j];
        if (y === undefined || y < lo || y > hi) break;
        cp = (cp << 6) | (y & 0x3f);
      }
      // An invalid byte is U+FFFD, and so is a truncated sequence, whose
      // offending byte starts anew.
      if (n === 0 || j <= n) { cps.push(0xfffd); i += n === 0 ? 1 : j; } else { cps.push(cp); i += n + 1; }
    }
    return fromCodePoints(cps);
  }
  function fromCodePoints(cps) {
    let out = "";
    for (let i = 0; i < cps.length; i += 4096) out += ReflectApply(fromCodePoint, null, cps.slice(i, i + 4096));
    return out;
  }

  // Punycode (RFC 3492).
  const BASE = 36, TMIN = 1, TMAX = 26, MAXINT = 0x7fffffff;
  function adapt(delta, n, first) {
    delta = first ? floor(delta / 700) : delta >> 1;
    delta += floor(delta / n);
    let k = 0;
    for (; delta > ((BASE - TMIN) * TMAX) >> 1; k += BASE) delta = floor(delta / (BASE - TMIN));
    return k + floor(((BASE - TMIN + 1) * delta) / (delta + 38));
  }
  const threshold = (k, bias) => (k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias);
  const digit = (d) => fromCodePoint(d < 26 ? d + 97 : d + 22);
  function punyEncode(s) {
    const cps = Array.from(s, (c) => c.codePointAt(0));
    let out = "";
    for (const c of cps) if (c < 0x80) out += fromCodePoint(c);
    const b = out.length;
    let h = b, n = 0x80, delta = 0, bias = 72;
    if (b > 0) out += "-";
    for (; h < cps.length; delta++, n++) {
      let m = MAXINT;
      for (const c of cps) if (c >= n && c < m) m = c;
      delta += (m - n) * (h + 1);
      if (delta > MAXINT) return FAIL;
      n = m;
      for (const c of cps) {
        if (c < n) delta++;
        if (c !== n) continue;
        let q = delta;
        for (let k = BASE; ; k += BASE) {
          const t = threshold(k, bias);
          if (q < t) break;
          out += digit(t + ((q - t) % (BASE - t)));
          q = floor((q - t) / (BASE - t));
        }
        out += digit(q);
        bias = adapt(delta, h + 1, h === b);
        delta = 0; h++;
      }
    }
    return out;
  }
  function punyDecode(s) {
    const d = s.lastIndexOf("-"), out = [];
    for (let j = 0; j < d; j++) out.push(s.charCodeAt(j));
    let n = 0x80, i = 0, bias = 72;
    for (let p = d < 0 ? 0 : d + 1; p < s.length; i++) {
      const old = i;
      for (let w = 1, k = BASE; ; k += BASE) {
        if (p >= s.length) return FAIL;
        const c = s.charCodeAt(p++);
        const v = c >= 0x30 && c <= 0x39 ? c - 22 : c >= 0x41 && c <= 0x5a ? c - 0x41 : c >= 0x61 && c <= 0x7a ? c - 0x61 : BASE;
        if (v >= BASE || (i += v * w) > MAXINT) return FAIL;
        const t = threshold(k, bias);
        if (v < t) break;
        if ((w *= BASE - t) > MAXINT) return FAIL;
      }
      bias = adapt(i - old, out.length + 1, old === 0);
      if ((n += floor(i / (out.length + 1))) > 0x10ffff) return FAIL;
      out.splice((i %= out.length + 1), 0, n);
    }
    return fromCodePoints(out);
  }

  // The UTS #46 subset (https://www.unicode.org/reports/tr46/): a code point
  // is mapped to its lowercase then NFKC form (so full-width forms, ligatures
  // and compatibility characters fold as IDNA maps them), a few are ignored
  // or mapped specially, and the result is NFC; a code point is disallowed
  // when unassigned, a control, private use, a surrogate or a specials block
  // one, when its mapping holds a full stop (as Unicode 15.1 disallows ⒈),
  // and ZWJ/ZWNJ always (CheckJoiners without the virama exception). A label
  // may not start with a combining mark. There is no Bidi check, as in Node 20.
  const IGNORED = /[\u00ad\u034f\u180b-\u180f\u200b\u2060\u2064\ufe00-\ufe0f\ufeff\u{e0100}-\u{e01ef}]/gu;
  const DISALLOWED = /[\p{Cc}\p{Cn}\p{Co}\p{Cs}\u200c\u200d\u2028\u2029\ufff9-\ufffd]/u;
  const MARK_START = /^\p{M}/u, ASCII = /^[\0-\x7f]*$/;
  function idnaMap(s) {
    s = s.replace(IGNORED, "").replace(/[\u3002\uff0e\uff61]/g, ".");
    let out = "";
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c < 0x80) { out += c >= 0x41 && c <= 0x5a ? fromCodePoint(c + 32) : ch; continue; }
      if (DISALLOWED.test(ch)) return FAIL;
      const m = c === 0x1e9e ? "ss" : ch.toLowerCase().normalize("NFKC").toLowerCase();
      if (m.includes(".")) return FAIL;
      out += m;
    }
    return out.normalize("NFC");
  }
  const validLabel = (l) => !DISALLOWED.test(l) && !MARK_START.test(l) && l.normalize("NFC") === l;
  // domainToASCII is https://url.spec.whatwg.org/#concept-domain-to-ascii
  // with beStrict false.
  function domainToASCII(domain) {
    if (ASCII.test(domain) && !/(^|\.)xn--/i.test(domain)) return domain === "" ? FAIL : domain.toLowerCase();
    const mapped = idnaMap(domain);
    if (mapped === FAIL) return FAIL;
    const labels = mapped.split(".");
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      if (l.startsWith("xn--")) {
        const u = ASCII.test(l) ? punyDecode(l.slice(4)) : FAIL;
        if (u === FAIL || u === "" || !validLabel(u) || idnaMap(u) !== u) return FAIL;
      } else if (!ASCII.test(l)) {
        const p = validLabel(l) ? punyEncode(l) : FAIL;
        if (p === FAIL) return FAIL;
        labels[i] = "xn--" + p;
      }
    }
    const r = labels.join(".");
    return r === "" ? FAIL : r;
  }

  // IPv4 (https://url.spec.whatwg.org/#concept-ipv4-parser), serialized.
  function ipv4Number(s) {
    if (s === "") return FAIL;
    let r = 10;
    if (s.length >= 2 && s[0] === "0" && (s[1] === "x" || s[1] === "X")) { r = 16; s = s.slice(2); }
    else if (s.length >= 2 && s[0] === "0") { r = 8; s = s.slice(1); }
    if (s === "") return 0;
    return (r === 16 ? /^[0-9a-fA-F]+$/ : r === 8 ? /^[0-7]+$/ : /^[0-9]+$/).test(s) ? parseInt(s, r) : FAIL;
  }
  function endsInNumber(s) {
    const parts = s.split(".");
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    const last = parts[parts.length - 1];
    return (last !== "" && /^[0-9]+$/.test(last)) || ipv4Number(last) !== FAIL;
  }
  function ipv4(s) {
    const parts = s.split(".");
    if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
    if (parts.length > 4) return FAIL;
    const ns = parts.map(ipv4Number), last = ns.length - 1;
    if (ns.includes(FAIL) || ns.some((n, i) => i < last && n > 255) || ns[last] >= 256 ** (4 - last)) return FAIL;
    let v = ns[last];
    for (let i = 0; i < last; i++) v += ns[i] * 256 ** (3 - i);
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join(".");
  }

  // IPv6 (https://url.spec.whatwg.org/#concept-ipv6-parser), serialized.
  function ipv6(s) {
    const a = [0, 0, 0, 0, 0, 0, 0, 0];
    let piece = 0, compress = -1, p = 0;
    const c = () => s.charCodeAt(p), isDigit = () => c() >= 0x30 && c() <= 0x39; // NaN past the end
    if (c() === 0x3a && s.charCodeAt(1) !== 0x3a) return FAIL;
    if (c() === 0x3a) { p = 2; compress = ++piece; }
    while (p < s.length) {
      if (piece === 8) return FAIL;
      if (c() === 0x3a && compress >= 0) return FAIL;
      if (c() === 0x3a) { p++; compress = ++piece; continue; }
      let value = 0, length = 0;
      while (length < 4 && isHex(c())) { value = value * 16 + hexVal(c()); p++; length++; }
      if (c() === 0x2e) {
        if (length === 0 || piece > 6) return FAIL;
        p -= length;
        let seen = 0;
        for (; p < s.length; seen++) {
          let v = -1;
          if (seen > 0) {
            if (c() !== 0x2e || seen >= 4) return FAIL;
            p++;
          }
          if (!isDigit()) return FAIL;
          for (; isDigit(); p++) {
            if (v === 0) return FAIL;
            v = v < 0 ? c() - 0x30 : v * 10 + c() - 0x30;
            if (v > 255) return FAIL;
          }
          a[piece] = a[piece] * 0x100 + v;
          if (seen === 1 || seen === 3) piece++;
        }
        if (seen !== 4) return FAIL;
        break;
      } else if (c() === 0x3a) {
        if (++p >= s.length) return FAIL;
      } else if (p < s.length) return FAIL;
      a[piece++] = value;
    }
    if (compress >= 0) {
      for (let swaps = piece - compress, i = 7; i !== 0 && swaps > 0; i--, swaps--) {
        const t = a[i]; a[i] = a[compress + swaps - 1]; a[compress + swaps - 1] = t;
      }
    } else if (piece !== 8) return FAIL;
    // The first longest run of two or more zero pieces is compressed.
    let best = -1, bestLen = 1;
    for (let i = 0, j = 0; i < 8; i = j > i ? j : i + 1) {
      for (j = i; j < 8 && a[j] === 0;) j++;
      if (j - i > bestLen) { best = i; bestLen = j - i; }
    }
    let out = "[";
    for (let i = 0; i < 8; i++) {
      if (i === best) { out += i === 0 ? "::" : ":"; i += bestLen - 1; continue; }
      out += a[i].toString(16) + (i !== 7 ? ":" : "");
    }
    return out + "]";
  }

  // parseHost is https://url.spec.whatwg.org/#concept-host-parser; it
  // returns the host serialized, or FAIL.
  function parseHost(s, opaque) {
    if (s[0] === "[") return s[s.length - 1] === "]" ? ipv6(s.slice(1, -1)) : FAIL;
    if (opaque) return /[\0\t\n\r #/:<>?@[\\\]^|]/.test(s) ? FAIL : encode(s, C0_SET);
    const ascii = domainToASCII(percentDecode(s));
    if (ascii === FAIL || /[\0-\x20#%/:<>?@[\\\]^|\x7f]/.test(ascii)) return FAIL;
    return endsInNumber(ascii) ? ipv4(ascii) : ascii;
  }

  const DEFAULT_PORT = { __proto__: null, "ftp:": 21, "file:": null, "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };
  const isSpecial = (scheme) => (scheme + ":") in DEFAULT_PORT;
  const isAlpha = (c) => /^[A-Za-z]$/.test(c);
  const isDrive = (s) => s.length === 2 && isAlpha(s[0]) && (s[1] === ":" || s[1] === "|");
  const isNormDrive = (s) => s.length === 2 && isAlpha(s[0]) && s[1] === ":";
  // startsWithDrive is "starts with a Windows drive letter" on s from p.
  const startsWithDrive = (s, p) => s.length - p >= 2 && isDrive(s[p] + s[p + 1]) &&
    (s.length - p === 2 || "/\\?#".includes(s[p + 2]));
  const SINGLE_DOT = /^(\.|%2e)$/i, DOUBLE_DOT = /^(\.|%2e)(\.|%2e)$/i;
  const hasCredentials = (u) => u.username !== "" || u.password !== "";
  function shorten(u) {
    if (u.scheme !== "file" || u.path.length !== 1 || !isNormDrive(u.path[0])) u.path.pop();
  }
  function inherit(u, base, path) { // the authority of base, and its path and query if path
    u.username = base.username; u.password = base.password; u.host = base.host; u.port = base.port;
    if (path) { u.path = base.path.slice(); u.query = base.query; }
  }
  // to moves the parser to state, at code point offset from the current one.
  const to = (st, state, offset = 0) => { st.state = state; st.p += offset; };
  const toQuery = (st) => { st.url.query = ""; st.state = QUERY; };
  const toFragment = (st) => { st.url.fragment = ""; st.state = FRAGMENT; };
  const end = (c, special) => c === undefined || c === "/" || c === "?" || c === "#" || (special && c === "\\");
  // run returns the offset of the first code unit from p that the global
  // regular expression stops matches, or the end.
  function run(st, stops) {
    stops.lastIndex = st.p;
    const m = stops.exec(st.s);
    return m === null ? st.s.length : m.index;
  }
  const PATH_STOPS = [/[/?#]/g, /[/\\?#]/g, /\//g, /[/\\]/g], OPAQUE_STOPS = /[?#]/g, QUERY_STOPS = /#/g;

  // parse is the basic URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser):
  // with no url it returns a new record or FAIL; with url and a state
  // override, it changes url and returns FAIL where the spec says failure.
  function parse(input, base, url = undefined, override = 0) {
    if (url === undefined) {
      url = { scheme: "", username: "", password: "", host: null, port: null, path: [], opaque: false, query: null, fragment: null };
      input = input.replace(/^[\0-\x20]+|[\0-\x20]+$/g, "");
    }
    // The pointer walks code units: a surrogate pair goes into a buffer
    // as two, and is percent-encoded whole with the buffer.
    const s = input.replace(/[\t\n\r]/g, "");
    const st = { url, base, override, s, state: override || SCHEME_START, buf: "", at: false, brackets: false, pw: false, p: 0 };
    for (; st.p <= s.length; st.p++) {
      const r = STATES[st.state](st, s[st.p], st.url, isSpecial(url.scheme));
      if (r === FAIL) return FAIL;
      if (r === true) return url;
    }
    return url;
  }

  // The parser's states: each takes the state, the code point c (undefined
  // at the end), the URL and whether its scheme is special, and returns FAIL
  // for failure, true to return early, or nothing to go on.
  const SCHEME_START = 1, SCHEME = 2, NO_SCHEME = 3, SPECIAL_RELATIVE_OR_AUTHORITY = 4, PATH_OR_AUTHORITY = 5,
    RELATIVE = 6, RELATIVE_SLASH = 7, SPECIAL_AUTHORITY_SLASHES = 8, SPECIAL_AUTHORITY_IGNORE_SLASHES = 9,
    AUTHORITY = 10, HOST = 11, HOSTNAME = 12, PORT = 13, FILE = 14, FILE_SLASH = 15, FILE_HOST = 16,
    PATH_START = 17, PATH = 18, OPAQUE_PATH = 19, QUERY = 20, FRAGMENT = 21;
  const STATES = [undefined];
  STATES[SCHEME_START] = (st, c) => {
    if (c !== undefined && isAlpha(c)) { st.buf += c.toLowerCase(); st.state = SCHEME; }
    else if (!st.override) to(st, NO_SCHEME, -1);
    else return FAIL;
  };
  STATES[SCHEME] = (st, c, u) => {
    if (c !== undefined && /^[A-Za-z0-9+\-.]$/.test(c)) { st.buf += c.toLowerCase(); return; }
    if (c !== ":") {
      if (st.override) return FAIL;
      st.buf = ""; st.state = NO_SCHEME; st.p = -1;
      return;
    }
    const buf = st.buf, special = isSpecial(buf);
    if (st.override && (isSpecial(u.scheme) !== special || (buf === "file" && (hasCredentials(u) || u.port !== null)) ||
      (u.scheme === "file" && u.host === ""))) return true;
    u.scheme = buf;
    if (st.override) {
      if (u.port === DEFAULT_PORT[buf + ":"]) u.port = null;
      return true;
    }
    st.buf = "";
    if (buf === "file") st.state = FILE;
    else if (special && st.base !== null && st.base.scheme === buf) st.state = SPECIAL_RELATIVE_OR_AUTHORITY;
    else if (special) st.state = SPECIAL_AUTHORITY_SLASHES;
    else if (st.s[st.p + 1] === "/") to(st, PATH_OR_AUTHORITY, 1);
    else { u.path = ""; u.opaque = true; st.state = OPAQUE_PATH; }
  };
  STATES[NO_SCHEME] = (st, c, u) => {
    const base = st.base;
    if (base === null || (base.opaque && c !== "#")) return FAIL;
    if (base.opaque) {
      u.scheme = base.scheme; u.path = base.path; u.opaque = true; u.query = base.query;
      toFragment(st);
    } else to(st, base.scheme !== "file" ? RELATIVE : FILE, -1);
  };
  STATES[SPECIAL_RELATIVE_OR_AUTHORITY] = (st, c) =>
    (c === "/" && st.s[st.p + 1] === "/" ? to(st, SPECIAL_AUTHORITY_IGNORE_SLASHES, 1) : to(st, RELATIVE, -1));
  STATES[PATH_OR_AUTHORITY] = (st, c) => (c === "/" ? to(st, AUTHORITY) : to(st, PATH, -1));
  STATES[RELATIVE] = (st, c, u) => {
    u.scheme = st.base.scheme;
    if (c === "/" || (isSpecial(u.scheme) && c === "\\")) { st.state = RELATIVE_SLASH; return; }
    inherit(u, st.base, true);
    if (c === "?") toQuery(st);
    else if (c === "#") toFragment(st);
    else if (c !== undefined) { u.query = null; shorten(u); to(st, PATH, -1); }
  };
  STATES[RELATIVE_SLASH] = (st, c, u, special) => {
    if (special && (c === "/" || c === "\\")) st.state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
    else if (c === "/") st.state = AUTHORITY;
    else { inherit(u, st.base, false); to(st, PATH, -1); }
  };
  STATES[SPECIAL_AUTHORITY_SLASHES] = (st, c) => to(st, SPECIAL_AUTHORITY_IGNORE_SLASHES, c === "/" && st.s[st.p + 1] === "/" ? 1 : -1);
  STATES[SPECIAL_AUTHORITY_IGNORE_SLASHES] = (st, c) => { if (c !== "/" && c !== "\\") to(st, AUTHORITY, -1); };
  STATES[AUTHORITY] = (st, c, u, special) => {
    if (c === "@") {
      if (st.at) st.buf = "%40" + st.buf;
      st.at = true;
      for (const ch of st.buf) {
        if (ch === ":" && !st.pw) { st.pw = true; continue; }
        const e = encodeCP(ch.codePointAt(0), USERINFO_SET);
        if (st.pw) u.password += e; else u.username += e;
      }
      st.buf = "";
    } else if (end(c, special)) {
      if (st.at && st.buf === "") return FAIL;
      to(st, HOST, -(st.buf.length + 1));
      st.buf = "";
    } else st.buf += c;
  };
  STATES[HOST] = STATES[HOSTNAME] = (st, c, u, special) => {
    if (st.override && u.scheme === "file") { to(st, FILE_HOST, -1); return; }
    const colon = c === ":" && !st.brackets;
    if (!colon && !end(c, special)) {
      if (c === "[") st.brackets = true;
      if (c === "]") st.brackets = false;
      st.buf += c;
      return;
    }
    if (colon ? st.buf === "" || st.override === HOSTNAME : special && st.buf === "") return FAIL;
    if (!colon && st.override && st.buf === "" && (hasCredentials(u) || u.port !== null)) return FAIL;
    const h = parseHost(st.buf, !special);
    if (h === FAIL) return FAIL;
    u.host = h; st.buf = "";
    if (colon) st.state = PORT;
    else {
      to(st, PATH_START, -1);
      if (st.override) return true;
    }
  };
  STATES[PORT] = (st, c, u, special) => {
    if (c !== undefined && c >= "0" && c <= "9") { st.buf += c; return; }
    if (!end(c, special) && !st.override) return FAIL;
    const n = parseInt(st.buf, 10);
    if (n > 65535) return FAIL;
    if (st.buf !== "") { u.port = n === DEFAULT_PORT[u.scheme + ":"] ? null : n; st.buf = ""; }
    if (st.override) return true;
    to(st, PATH_START, -1);
  };
  STATES[FILE] = (st, c, u) => {
    const base = st.base;
    u.scheme = "file"; u.host = "";
    if (c === "/" || c === "\\") st.state = FILE_SLASH;
    else if (base === null || base.scheme !== "file") to(st, PATH, -1);
    else {
      u.host = base.host; u.path = base.path.slice(); u.query = base.query;
      if (c === "?") toQuery(st);
      else if (c === "#") toFragment(st);
      else if (c !== undefined) {
        u.query = null;
        if (!startsWithDrive(st.s, st.p)) shorten(u); else u.path = [];
        to(st, PATH, -1);
      }
    }
  };
  STATES[FILE_SLASH] = (st, c, u) => {
    const base = st.base;
    if (c === "/" || c === "\\") { st.state = FILE_HOST; return; }
    if (base !== null && base.scheme === "file") {
      u.host = base.host;
      if (!startsWithDrive(st.s, st.p) && base.path.length > 0 && isNormDrive(base.path[0])) u.path.push(base.path[0]);
    }
    to(st, PATH, -1);
  };
  STATES[FILE_HOST] = (st, c, u) => {
    if (!end(c, true)) { st.buf += c; return; }
    st.p--;
    if (!st.override && isDrive(st.buf)) { st.state = PATH; return; }
    let h = "";
    if (st.buf !== "") {
      h = parseHost(st.buf, false);
      if (h === FAIL) return FAIL;
      if (h === "localhost") h = "";
    }
    u.host = h;
    if (st.override) return true;
    st.buf = ""; st.state = PATH_START;
  };
  STATES[PATH_START] = (st, c, u, special) => {
    if (special) to(st, PATH, c !== "/" && c !== "\\" ? -1 : 0);
    else if (!st.override && c === "?") toQuery(st);
    else if (!st.override && c === "#") toFragment(st);
    else if (c !== undefined) to(st, PATH, c !== "/" ? -1 : 0);
    else if (st.override && u.host === null) u.path.push("");
  };
  STATES[PATH] = (st, c, u, special) => {
    const slash = c === "/" || (special && c === "\\");
    if (c !== undefined && !slash && (st.override || (c !== "?" && c !== "#"))) { // the segment, up to its end
      const q = run(st, PATH_STOPS[(special ? 1 : 0) + (st.override ? 2 : 0)]);
      st.buf += encode(st.s.slice(st.p, q), PATH_SET);
      st.p = q - 1;
      return;
    }
    if (DOUBLE_DOT.test(st.buf)) shorten(u);
    if (DOUBLE_DOT.test(st.buf) || SINGLE_DOT.test(st.buf)) {
      if (!slash) u.path.push("");
    } else {
      if (u.scheme === "file" && u.path.length === 0 && isDrive(st.buf)) st.buf = st.buf[0] + ":";
      u.path.push(st.buf);
    }
    st.buf = "";
    if (c === "?") toQuery(st);
    if (c === "#") toFragment(st);
  };
  STATES[OPAQUE_PATH] = (st, c, u) => {
    if (c === "?") toQuery(st);
    else if (c === "#") toFragment(st);
    else if (c !== undefined) {
      const q = run(st, OPAQUE_STOPS);
      u.path += encode(st.s.slice(st.p, q), C0_SET);
      st.p = q - 1;
    }
  };
  STATES[QUERY] = (st, c, u, special) => {
    if (c !== undefined && (st.override || c !== "#")) {
      const q = st.override ? st.s.length : run(st, QUERY_STOPS);
      st.buf += st.s.slice(st.p, q);
      st.p = q - 1;
      return;
    }
    u.query += encode(st.buf, special ? SPECIAL_QUERY_SET : QUERY_SET);
    st.buf = "";
    if (c === "#") toFragment(st);
  };
  STATES[FRAGMENT] = (st, c, u) => {
    if (c !== undefined) { u.fragment += encode(st.s.slice(st.p), FRAGMENT_SET); st.p = st.s.length - 1; }
  };

  const pathString = (u) => (u.opaque ? u.path : u.path.length === 0 ? "" : "/" + u.path.join("/"));
  function serialize(u) {
    let out = u.scheme + ":";
    if (u.host !== null) {
      out += "//";
      if (hasCredentials(u)) out += u.username + (u.password !== "" ? ":" + u.password : "") + "@";
      out += u.host + (u.port !== null ? ":" + u.port : "");
    } else if (!u.opaque && u.path.length > 1 && u.path[0] === "") out += "/.";
    out += pathString(u);
    if (u.query !== null) out += "?" + u.query;
    return u.fragment !== null ? out + "#" + u.fragment : out;
  }
  function origin(u) {
    if (u.scheme === "blob") {
      const inner = parse(pathString(u), null);
      return inner !== FAIL && (inner.scheme === "http" || inner.scheme === "https") ? origin(inner) : "null";
    }
    if (!isSpecial(u.scheme) || u.scheme === "file") return "null";
    return u.scheme + "://" + u.host + (u.port !== null ? ":" + u.port : "");
  }
  const stripTrailingSpaces = (u) => { if (u.opaque && u.fragment === null && u.query === null) u.path = u.path.replace(/ +$/, ""); };

  // The application/x-www-form-urlencoded parser and serializer
  // (https://url.spec.whatwg.org/#concept-urlencoded).
  function parseForm(s) {
    const list = [];
    for (const part of s.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("="), name = eq < 0 ? part : part.slice(0, eq), value = eq < 0 ? "" : part.slice(eq + 1);
      list.push([percentDecode(name.replace(/\+/g, " ")), percentDecode(value.replace(/\+/g, " "))]);
    }
    return list;
  }
  const serializeForm = (list) => list.map((p) => encode(p[0], FORM_SET, true) + "=" + encode(p[1], FORM_SET, true)).join("&");

  // The errors are Node's, with its codes.
  function nodeError(message, code, props = undefined) {
    const e = new TypeError_(message);
    e.code = code;
    for (const k in props) if (props[k] !== undefined) e[k] = props[k];
    return e;
  }
  const invalidURL = (input, base) => nodeError("Invalid URL", "ERR_INVALID_URL", { input, base });
  const missing = (what) => nodeError("The " + what + " must be specified", "ERR_MISSING_ARGS");
  const need = (n, args, what) => { if (args.length < n) throw missing(what); };
  // describe words a value as Node's ERR_INVALID_ARG_TYPE does.
  function describe(v) {
    if (v === undefined || v === null) return String_(v);
    if (typeof v === "function") return "function " + v.name;
    if (typeof v === "object") return v.constructor && v.constructor.name ? "an instance of " + v.constructor.name : String_(v);
    let shown = typeof v === "string" ? "'" + v + "'" : typeof v === "bigint" ? v + "n" : String_(v);
    if (shown.length > 28) shown = shown.slice(0, 25) + "...";
    return "type " + typeof v + " (" + shown + ")";
  }
  function parseAPI(url, base) {
    const b = base === undefined ? null : parse(toUSV(base), null);
    return b === FAIL && base !== undefined ? FAIL : parse(toUSV(url), b);
  }

  let recordOf, setList, newParams, listOf;
  class URL {
    #u; #params = null;
    constructor(url, base = undefined) {
      need(1, arguments, '"url" argument');
      const r = parseAPI(url, base);
      if (r === FAIL) throw invalidURL(String_(url), base === undefined ? undefined : String_(base));
      this.#u = r;
    }
    static canParse(url, base = undefined) {
      need(1, arguments, '"url" argument');
      return parseAPI(url, base) !== FAIL;
    }
    static parse(url, base = undefined) {
      need(1, arguments, '"url" argument');
      return parseAPI(url, base) === FAIL ? null : new URL(url, base);
    }
    static { recordOf = (o) => o.#u; }
    #queryChanged() { if (this.#params !== null) setList(this.#params, parseForm(this.#u.query ?? "")); }
    #noCredentials() { const u = this.#u; return u.host === null || u.host === "" || u.scheme === "file"; }
    get href() { return serialize(this.#u); }
    set href(v) {
      const r = parse(toUSV(v), null);
      if (r === FAIL) throw invalidURL(String_(v));
      this.#u = r;
      this.#queryChanged();
    }
    get origin() { return origin(this.#u); }
    get protocol() { return this.#u.scheme + ":"; }
    set protocol(v) { parse(toUSV(v) + ":", null, this.#u, SCHEME_START); }
    get username() { return this.#u.username; }
    set username(v) { if (!this.#noCredentials()) this.#u.username = encode(toUSV(v), USERINFO_SET); }
    get password() { return this.#u.password; }
    set password(v) { if (!this.#noCredentials()) this.#u.password = encode(toUSV(v), USERINFO_SET); }
    get host() { const u = this.#u; return u.host === null ? "" : u.port === null ? u.host : u.host + ":" + u.port; }
    set host(v) { if (!this.#u.opaque) parse(toUSV(v), null, this.#u, HOST); }
    get hostname() { return this.#u.host ?? ""; }
    set hostname(v) { if (!this.#u.opaque) parse(toUSV(v), null, this.#u, HOSTNAME); }
    get port() { return this.#u.port === null ? "" : String_(this.#u.port); }
    set port(v) {
      const s = toUSV(v);
      if (!this.#noCredentials() && s === "") this.#u.port = null;
      else if (!this.#noCredentials()) parse(s, null, this.#u, PORT);
    }
    get pathname() { return pathString(this.#u); }
    set pathname(v) {
      const s = toUSV(v);
      if (!this.#u.opaque) { this.#u.path = []; parse(s, null, this.#u, PATH_START); }
    }
    get search() { const q = this.#u.query; return q === null || q === "" ? "" : "?" + q; }
    set search(v) {
      const u = this.#u, s = toUSV(v);
      if (s === "") { u.query = null; stripTrailingSpaces(u); }
      else { u.query = ""; parse(s[0] === "?" ? s.slice(1) : s, null, u, QUERY); }
      this.#queryChanged();
    }
    get searchParams() { return this.#params ??= newParams(this); }
    get hash() { const f = this.#u.fragment; return f === null || f === "" ? "" : "#" + f; }
    set hash(v) {
      const u = this.#u, s = toUSV(v);
      if (s === "") { u.fragment = null; stripTrailingSpaces(u); return; }
      u.fragment = "";
      parse(s[0] === "#" ? s.slice(1) : s, null, u, FRAGMENT);
    }
    toString() { return serialize(this.#u); }
    toJSON() { return serialize(this.#u); }
  }

  const tupleError = () => nodeError("Each query pair must be an iterable [name, value] tuple", "ERR_INVALID_TUPLE");
  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";
  const noInit = {};
  class URLSearchParams {
    #list = []; #url = null;
    constructor(init = undefined) {
      if (init === noInit || init === undefined || init === null) return;
      if (!isObject(init)) {
        const s = toUSV(init);
        this.#list = parseForm(s[0] === "?" ? s.slice(1) : s);
      } else if (typeof init[iteratorSym] === "function") { // a sequence of pairs
        for (const pair of init) {
          if (!isObject(pair) || typeof pair[iteratorSym] !== "function") throw tupleError();
          const a = Array.from(pair);
          if (a.length !== 2) throw tupleError();
          this.#list.push([toUSV(a[0]), toUSV(a[1])]);
        }
      } else if (init[iteratorSym] !== undefined) {
        throw nodeError("Query pairs must be iterable", "ERR_ARG_NOT_ITERABLE");
      } else { // a record
        for (const k of Reflect.ownKeys(init)) {
          const d = Object.getOwnPropertyDescriptor(init, k);
          if (d !== undefined && d.enumerable) this.#list.push([toUSV(k), toUSV(init[k])]);
        }
      }
    }
    static {
      setList = (p, list) => { p.#list = list; };
      listOf = (p) => p.#list;
      newParams = (url) => {
        const p = new URLSearchParams(noInit);
        p.#url = url;
        p.#list = parseForm(recordOf(url).query ?? "");
        return p;
      };
    }
    #update() {
      if (this.#url === null) return;
      const u = recordOf(this.#url), s = serializeForm(this.#list);
      u.query = s === "" ? null : s;
      if (s === "") stripTrailingSpaces(u);
    }
    get size() { return this.#list.length; }
    append(name, value) {
      need(2, arguments, '"name" and "value" arguments');
      this.#list.push([toUSV(name), toUSV(value)]);
      this.#update();
    }
    delete(name, value = undefined) {
      need(1, arguments, '"name" argument');
      const n = toUSV(name), v = value === undefined ? undefined : toUSV(value);
      this.#list = this.#list.filter((p) => p[0] !== n || (v !== undefined && p[1] !== v));
      this.#update();
    }
    get(name) {
      need(1, arguments, '"name" argument');
      const n = toUSV(name), p = this.#list.find((p) => p[0] === n);
      return p === undefined ? null : p[1];
    }
    getAll(name) {
      need(1, arguments, '"name" argument');
      const n = toUSV(name);
      return this.#list.filter((p) => p[0] === n).map((p) => p[1]);
    }
    has(name, value = undefined) {
      need(1, arguments, '"name" argument');
      const n = toUSV(name), v = value === undefined ? undefined : toUSV(value);
      return this.#list.some((p) => p[0] === n && (v === undefined || p[1] === v));
    }
    set(name, value) {
      need(2, arguments, '"name" and "value" arguments');
      const n = toUSV(name), v = toUSV(value), i = this.#list.findIndex((p) => p[0] === n);
      if (i < 0) this.#list.push([n, v]);
      else {
        this.#list[i][1] = v;
        this.#list = this.#list.filter((p, j) => j <= i || p[0] !== n);
      }
      this.#update();
    }
    sort() { // stable, by code units
      this.#list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this.#update();
    }
    forEach(callback, thisArg = undefined) {
      if (typeof callback !== "function") {
        throw nodeError('The "callback" argument must be of type function. Received ' + describe(callback), "ERR_INVALID_ARG_TYPE");
      }
      for (let i = 0; i < this.#list.length; i++) ReflectApply(callback, thisArg, [this.#list[i][1], this.#list[i][0], this]);
    }
    keys() { return new ParamsIterator(this, 0); }
    values() { return new ParamsIterator(this, 1); }
    entries() { return new ParamsIterator(this, 2); }
    toString() { return serializeForm(this.#list); }
  }

  // ParamsIterator is the "URLSearchParams Iterator": live over the list, as the
  // spec's value pairs to iterate over are.
  class ParamsIterator {
    #params; #kind; #i = 0;
    constructor(params, kind) { this.#params = params; this.#kind = kind; }
    next() {
      const list = this.#params === null ? [] : listOf(this.#params);
      if (this.#i >= list.length) { this.#params = null; return { value: undefined, done: true }; }
      const p = list[this.#i++];
      return { value: this.#kind === 0 ? p[0] : this.#kind === 1 ? p[1] : [p[0], p[1]], done: false };
    }
  }
  Object.setPrototypeOf(ParamsIterator.prototype, Object.getPrototypeOf(Object.getPrototypeOf([][iteratorSym]())));
  ObjectDefineProperty(ParamsIterator.prototype, Symbol.toStringTag, { value: "URLSearchParams Iterator", configurable: true });
  // As Web IDL defines them, attributes and operations are enumerable.
  for (const [C, tag] of [[URL, "URL"], [URLSearchParams, "URLSearchParams"]]) {
    for (const k of Object.getOwnPropertyNames(C.prototype)) {
      if (k !== "constructor") ObjectDefineProperty(C.prototype, k, { enumerable: true });
    }
    ObjectDefineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });
  }
  ObjectDefineProperty(URLSearchParams.prototype, iteratorSym, { value: URLSearchParams.prototype.entries, writable: true, configurable: true });

  return { __proto__: null, URL, URLSearchParams };
})
