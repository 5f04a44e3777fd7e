// Generates url_cases.json, the corpus of URL and URLSearchParams
// (runtime/url_test.go): what Node's URL makes of each input, so that the
// engine's URL can be compared with it.
// Run: node runtime/testdata/url_gen.mjs > runtime/testdata/url_cases.json
const AsyncFunction = (async () => {}).constructor;

let seed = 0x0c0de;
function rand() { // mulberry32: the corpus is the same at every generation
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];

// The components compared for each parse; a failure is the error's name and message.
const COMPONENTS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
function components(u) {
  const o = {};
  for (const k of COMPONENTS) o[k] = u[k];
  return o;
}
function parsed(input, base) {
  try {
    return components(base === undefined ? new URL(input) : new URL(input, base));
  } catch (e) {
    return { failure: e.name + ": " + e.message };
  }
}

// Inputs by class, written for the hard cases; then combinations of parts.
const classes = {
  special: ["http://example.com", "HTTP://EXAMPLE.COM:80/A/b", "https://h:443/", "https://h:0443/x", "ws://h:80", "wss://h:443/?q",
    "ftp://h:21/f", "ftp://h:22/f", "http://h:65535", "http://h:65536", "http://h:1a", "http://h:/p", "http://:80", "http://@h",
    "http://u@h", "http://u:@h", "http://:p@h", "http://u:p:q@h", "http://a@b@c/", "http://u:p@h:8/x", "https://a b.com",
    "http:example.com", "http:/example.com", "http:\\\\example.com\\a", "https:////x", "  http://x/  ", "\t\nht\ttp://x\n/", "\u0000http://x/\u001f",
    "http://h/a%zz%41", "http://h/ä ö", "http://h/?ä ö'\"<>#ä ö'\"<>`", "http://h/a\"b<c>d`e{f}g^h|i", "http://h/%2e./%2E%2e/x",
    "http://h/a/./b/../c/", "http://h/a/..", "http://h/.", "http://h/..", "http://h/a/%2e", "http://h/\u{1F600}?\u{1F600}#\u{1F600}",
    "http://h/\ud800x", "http://h#", "http://h?", "http://h?#", "http://h/?a=b&c=d+e", "http://[::1]@h/", "http://u:p@[::1]:9/",
    "HTTPS://Ex%41mple.com/", "http://ex%2fample.com", "http://%30x7f.1/", "http://h\\p\\q?r\\s#t\\u", "http://h/p\rq"],
  opaque: ["mailto:someone@example.com", "mailto:a b@c?subject=x y#f g", "javascript:alert(1)", "javascript:a  ", "data:text/plain,hi there",
    "urn:isbn:0451450523", "sc:ñ", "sc:\u0000\u007f", "sc:%zz", "tel:+1-555", "about:blank", "sc: a", "sc:a b ?q #f",
    "a:", "z9+.-:x", "9a:b", "+a:b", "a!:b"],
  nonspecial: ["sc://h/p", "sc://H/P", "sc://ñ/ñ", "sc://u:p@h:99/x?y#z", "sc://h:0/", "sc://%41/", "sc://a b/", "sc://a<b/", "sc://[::1]/",
    "sc://[1:2]/", "sc://h/./a/../b", "sc:/a/./b/..", "sc:/.//p", "sc://", "sc:///", "sc:////x", "sc://h?q'#", "sc://h\\a\\b",
    "git+ssh://git@github.com:owner/repo", "sc://%/", "sc://@/", "sc://te@s:t@h/", "sc://h:65536/", "sc://ü.com/", "sc://x/\u{1F600}"],
  file: ["file:///C:/a/b", "file:///c|/a/b", "file:C:/x", "file:/C|/x", "file://C:/x", "file://host/share/x", "file://localhost/etc",
    "file://LOCALHOST/x", "file:///C:/a/../..", "file:///a/../..", "file:///C:/", "file:.", "file:..", "file:", "file:///?q#f",
    "file://h:80/", "file://u@h/", "file://[::1]/x", "file:\\\\server\\share", "file:///C:/a\\b", "file:///%43%3A/x", "file:///C%7C/x",
    "FILE:///x", "file://ñ/x", "file://1.2.3.4/x", "file:///a b?c d#e f"],
  idna: ["http://bücher.de/", "http://BÜCHER.de/", "http://Ｅｘａｍｐｌｅ．ｃｏｍ/", "http://example。com/", "http://faß.de/", "http://ΣΑΣ.gr/",
    "http://ǅ.com/", "http://ẞ.com/", "http://日本語.jp/", "http://xn--wgv71a119e.jp/", "http://XN--WGV71A119E.jp/", "http://☃.net/",
    "http://xn--n3h.net/", "http://xn--ls8h.la/", "http://a.b.xn--Zca/", "http://xn--/", "http://xn--a/", "http://xn--abc.com/",
    "http://xn--ss-.com/", "http://xn--ñ.com/", "http://a\u00adb.com/", "http://a\ufe0fb.com/", "http://a\u200db.com/", "http://a\u200cb.com/",
    "http://\u0301a.com/", "http://a\u2488.com/", "http://\u2100.com/", "http://%C3%BC.com/", "http://%C3.com/", "http://%zz.com/",
    "http://a%2Fb.com/", "http://a%41.com/", "http://\u00a0.com/", "http://a\u3000b.com/", "http://\u0627\u0031.com/", "http://ab--c.com/",
    "http://-a-.com/", "http://a_b.com/", "http://a..b/", "http://./", "http://../", "http://a./", "http://é.", "http://مثال.إختبار/",
    "http://пример.испытание/", "http://ﬁ.com/", "http://①.com/", "http://ａ.com/", "http://xn--9krt00a.com/", "http://\u{1F600}.com/",
    "http://\ue000.com/", "http://\u0378.com/", "http://I\u0307.com/", "http://\u0130.com/", "http://ß.com/", "http://xn--zca.com/",
    "http://a\u0000b/", "http://a%00b/", "http://a^b/", "http://a|b/", "http://a%7Cb/", "http://a<b/", "http://a\u007fb/", "http://a%7Fb/"],
  ipv4: ["http://127.0.0.1/", "http://0x7f.0.0.1/", "http://0x7F.1/", "http://0177.0.0.1/", "http://2130706433/", "http://017700000001/",
    "http://0x7f000001/", "http://127.1/", "http://127.0.1/", "http://1.2.3.4.5/", "http://1.2.3.4./", "http://1.2.3.4../", "http://256.0.0.1/",
    "http://1.256/", "http://1.16777216/", "http://1.2.65536/", "http://1.2.3.256/", "http://4294967295/", "http://4294967296/",
    "http://0x100000000/", "http://0xffffffff/", "http://0/", "http://0x/", "http://0x.0x.0/", "http://00/", "http://08/", "http://09.1/",
    "http://0xg/", "http://1.2.3.09/", "http://999999999999999999999/", "http://1.2.3/", "http://foo.1/", "http://1.foo/", "http://foo.09/",
    "http://foo.0x/", "http://foo.0xg/", "http://0..0/", "http://.1.2/", "http://1.2.3.4.5.foo/", "sc://1.2.3.4.5/", "http://１２７.0.0.1/",
    "http://%31.2.3.4/", "http://0x7f.00000001/", "http://000000000000000000000000000001/"],
  ipv6: ["http://[::]/", "http://[::1]/", "http://[1::]/", "http://[1:0:0:0:0:0:0:0]/", "http://[0:0:1:0:0:0:0:0]/", "http://[1:0:0:2:0:0:0:3]/",
    "http://[1:0:0:2::3:0]/", "http://[FFFF::AbCd]/", "http://[0001:0002:0003:0004:0005:0006:0007:0008]/", "http://[1:2:3:4:5:6:7:8:9]/",
    "http://[1:2:3:4:5:6:7]/", "http://[1::2::3]/", "http://[:1]/", "http://[1:]/", "http://[::ffff:1.2.3.4]/", "http://[::1.2.3.4]/",
    "http://[::1.2.3]/", "http://[::1.2.3.4.5]/", "http://[::1.2.3.256]/", "http://[::01.2.3.4]/", "http://[1:2:3:4:5:6:1.2.3.4]/",
    "http://[1:2:3:4:5:6:7:1.2.3.4]/", "http://[12345::]/", "http://[g::]/", "http://[::1]:80/", "http://[::1/", "http://::1]/",
    "http://[::%31]/", "http://[ ::1]/", "http://[::1]x/", "http://x[::1]/", "http://[0:0:0:0:0:0:0:0]/", "http://[0:1:0:1:0:0:1:0]/",
    "http://[1:0:1:0:0:1:0:0]/", "http://[::ffff:0:0]/", "https://[2001:db8:85a3::8a2e:370:7334]:8443/x"],
  relative: [["", "http://a/b/c?d#e"], ["#f", "http://a/b?c#d"], ["?x", "http://a/b?c#d"], ["g", "http://a/b/c/d;p?q"],
    ["./g", "http://a/b/c/d;p?q"], ["g/", "http://a/b/c/d;p?q"], ["/g", "http://a/b/c/d;p?q"], ["//g", "http://a/b/c/d;p?q"],
    ["g?y", "http://a/b/c/d;p?q"], ["g#s", "http://a/b/c/d;p?q"], [";x", "http://a/b/c/d;p?q"], [".", "http://a/b/c/d;p?q"],
    ["./", "http://a/b/c/d;p?q"], ["..", "http://a/b/c/d;p?q"], ["../", "http://a/b/c/d;p?q"], ["../g", "http://a/b/c/d;p?q"],
    ["../..", "http://a/b/c/d;p?q"], ["../../../g", "http://a/b/c/d;p?q"], ["/./g", "http://a/b/c/d;p?q"], ["/../g", "http://a/b/c/d;p?q"],
    ["g.", "http://a/b/c/d;p?q"], [".g", "http://a/b/c/d;p?q"], ["g..", "http://a/b/c/d;p?q"], ["..g", "http://a/b/c/d;p?q"],
    ["./../g", "http://a/b/c/d;p?q"], ["g/./h", "http://a/b/c/d;p?q"], ["g/../h", "http://a/b/c/d;p?q"], ["http:g", "http://a/b/c/d;p?q"],
    ["https:g", "http://a/b/c/d;p?q"], ["\\\\x\\y", "http://a/b"], ["\\x", "http://a/b/c"], ["/\\x/y", "http://a/b"], ["//x:9/y", "https://a/"],
    ["x", "sc:opaque"], ["#x", "sc:opaque"], ["?x", "sc:opaque"], ["x", "sc://h/a/b"], ["../x", "sc://h/a/b"], ["//y/z", "sc://h/a"],
    ["x", "sc:/a/b"], ["/x", "sc:/a/b"], ["x", "file:///C:/a/b"], ["/x", "file:///C:/a/b"], ["..", "file:///C:/"], ["../../x", "file:///C:/a"],
    ["D:/x", "file:///C:/a"], ["//h/x", "file:///C:/a"], ["?q", "file:///C:/a"], ["#f", "file://h/x?q"], ["x", "file://h/a/b"],
    ["/C|/x", "file://h/a"], ["C|", "file://h/a"], ["\\x", "file:///C:/a"], ["http://x/", "invalid"], ["x", "invalid"], ["x", "about:blank"],
    ["a:b", "sc:opaque"], ["//", "http://a/"], ["///x", "http://a/"], ["http:", "http://a/b"], ["http:/x", "http://a/b"],
    ["sc:", "sc://h/a"], ["ftp:x", "ftp://h/a/b"], ["ws:x", "http://h/a"], ["file:x", "file:///a/b"], ["?a b'", "ws://h/"],
    ["\u{1F600}", "http://h/a/"], ["%2e%2e/x", "http://h/a/b/"], [" x ", "http://h/a"], ["..\\x", "http://h/a/b/"], ["..\\x", "sc://h/a/b/"]],
};

const parse = [];
const addParse = (cls, input, base) => parse.push(base === undefined ? { class: cls, input, want: parsed(input) } : { class: cls, input, base, want: parsed(input, base) });
for (const [cls, inputs] of Object.entries(classes)) {
  for (const x of inputs) Array.isArray(x) ? addParse(cls, x[0], x[1]) : addParse(cls, x);
}
// Combinations: a scheme, an authority, a path, a query and a fragment, each
// picked from parts that exercise a percent-encode set or a delimiter.
const schemes = ["http:", "HTTPS:", "ws:", "ftp:", "file:", "sc:", "mailto:", "blob:"];
const auths = ["//", "//h", "//u:p@H", "//ü", "//[::1]", "//1.2.0x3", "//h:8080", "//h:", "/", "", "\\\\h", "//a%20b", "//xn--n3h"];
const paths = ["", "/", "/a/b", "/a b", "/a/../b", "/./x", "/%2e%2E", "/ä", "/a?b", "/{}`^|", "/C:/x", "/c|", "\\x\\y", "/a;b=c", "/\u0001\u007f", "/%"];
const queries = ["", "?", "?a=b", "?a b'\"<>", "?ä", "?%zz", "?#", "?\u{1F600}", "?{`}"];
const frags = ["", "#", "#f", "#a b", "#<>`\"", "#ä", "##", "#\u0000"];
for (let i = 0; i < 160; i++) addParse("combined", pick(schemes) + pick(auths) + pick(paths) + pick(queries) + pick(frags));
const bases = ["http://h/a/b?c#d", "file:///C:/a/b", "sc://h/a/b", "sc:/a", "https://u:p@h:99/a/"];
const rels = ["", "x", "./x", "../x", "/x", "//y/x", "?q", "#f", "..", "../../..", "\\x", "C:", "c|/y", "%2e/x", "x y", "ä"];
for (let i = 0; i < 60; i++) addParse("combined relative", pick(rels) + pick(["", "?q", "#f"]), pick(bases));

// Setters: each sets one component of a parsed URL.
const setters = [];
const setterValues = {
  href: ["http://x/y", "not a url", "sc:a", "HTTPS://H:443/"],
  protocol: ["https", "HTTP:", "sc", "file", "ftp:x", "1http", "ws", "", "a b", "mailto"],
  username: ["u", "u s@:/", "ä", "", "%41"],
  password: ["p", "p s@:/", "ä", "", "%zz"],
  host: ["x.com", "x.com:81", "x.com:", "[::1]:9", "ü.com", "a b", "", ":8", "x:99999", "x/y", "x?y", "x#y", "1.2.3", "%41"],
  hostname: ["x.com", "x.com:81", "[::1]", "ü.com", "", "a b", "x/y", "0x7f.1", "a%25b"],
  port: ["81", "80", "443", "0", "65535", "65536", "8x", "x8", "", " 9", "+9", "-1", "1.5"],
  pathname: ["/x", "x", "a b/ä", "/../x", "\\a\\b", "?#", "/%2e/x", "", "//", "C|/x"],
  search: ["q", "?q", "?a b#c", "", "?", "ä'", "??"],
  hash: ["f", "#f", "#a b", "", "#", "ä<>`", "##"],
};
const setterBases = ["http://u:p@h:8080/a/b?q#f", "https://h/", "sc://h/p", "sc:opaque ?q#f", "file:///C:/x", "file://h/x", "mailto:a@b", "sc:/p", "ftp://h/"];
for (const base of setterBases) {
  for (const [setter, values] of Object.entries(setterValues)) {
    for (const value of values) {
      const u = new URL(base);
      let want;
      try {
        u[setter] = value;
        want = components(u);
      } catch (e) {
        want = { failure: e.name + ": " + e.message };
      }
      setters.push({ href: base, setter, value, want });
    }
  }
}

// URLSearchParams: bodies of async functions that return a string, as
// web_cases.json's.
const params = [];
const addParams = (name, src) => params.push({ name, src });
const forms = ["a=b&c=d", "?a=b", "a", "a=", "=b", "&&a=b&&", "a=b=c", "a+b=c+d", "%41=%42", "%zz=%", "a=%C3%A9", "a=%C3", "a=%FF%FE",
  "ä=ö", "a=1&a=2&b=3&a=4", "z=1&a=2&Z=3&ä=4&a=1", "\u{1F600}=\ud800", "a%26b=c%3Dd", " = ", "a=b;c=d", "??a=b"];
addParams("parse and serialize", `return ${JSON.stringify(forms)}.map((s) => {
  const p = new URLSearchParams(s);
  return [...p].map(([k, v]) => k + "→" + v).join(",") + " ⇒ " + p + " size " + p.size;
}).join("\\n");`);
addParams("serialize every code point class", `const p = new URLSearchParams();
for (let c = 0; c < 0x80; c++) p.append(String.fromCharCode(c), "v" + String.fromCharCode(c));
p.append("ä€\u{1F600}", "\ud800\udc00 \ud800"); return p.toString();`);
addParams("constructors", `const out = [];
const show = (f) => { try { const p = f(); return p.toString() + "|" + p.size; } catch (e) { return e.name + ": " + e.message; } };
out.push(show(() => new URLSearchParams([["a", "1"], ["b", 2], ["a", 3]])));
out.push(show(() => new URLSearchParams(new Map([["x", "y"], ["ä", "ö"]]))));
out.push(show(() => new URLSearchParams({ a: 1, b: "x y", [Symbol("s")]: 2, "ä": null })));
out.push(show(() => new URLSearchParams(Object.defineProperty({ v: 1 }, "hidden", { value: 2, enumerable: false }))));
out.push(show(() => new URLSearchParams(new URLSearchParams("q=1&r=2"))));
out.push(show(() => new URLSearchParams([["a"]])));
out.push(show(() => new URLSearchParams([["a", "b", "c"]])));
out.push(show(() => new URLSearchParams([1])));
out.push(show(() => new URLSearchParams(["ab"])));
out.push(show(() => new URLSearchParams([new Set(["k", "v"])])));
out.push(show(() => new URLSearchParams(undefined)), show(() => new URLSearchParams("")), show(() => new URLSearchParams(12)));
out.push(show(() => new URLSearchParams(function f() {})));
return out.join("\\n");`);
addParams("methods", `const p = new URLSearchParams("a=1&b=2&a=3&c=&a=1");
const out = [p.get("a"), p.get("zz"), p.getAll("a").join(), p.getAll("zz").length, p.has("a"), p.has("a", "3"), p.has("a", "9"), p.has("zz"), p.size];
p.append("d", "x y"); out.push(p.toString());
p.delete("a", "1"); out.push(p.toString());
p.set("a", "new"); out.push(p.toString());
p.set("e", "5"); out.push(p.toString());
p.delete("a"); out.push(p.toString(), p.size);
p.delete("b", undefined); out.push(p.toString());
const q = new URLSearchParams("z=1&b=2&a=3&b=1&ä=0&A=9&\u{1F600}=1&\uffff=2&a=0");
q.sort(); out.push(q.toString());
out.push([...q.keys()].join(), [...q.values()].join(), [...q.entries()].map((e) => e.join(":")).join());
const seen = []; q.forEach(function (v, k, o) { seen.push(k + v + (o === q) + (this === out)); }, out); out.push(seen.join());
const it = q.keys(); out.push(Object.prototype.toString.call(it), typeof it[Symbol.iterator], it[Symbol.iterator]() === it);
out.push(Object.prototype.toString.call(q), String(q.get.length), String(q.delete.length));
return out.join("|");`);
addParams("live iteration", `const p = new URLSearchParams("a=1&b=2&c=3"); const out = [];
for (const [k] of p) { out.push(k); if (k === "a") p.delete("b"); if (k === "c") p.append("d", "4"); }
const it = p.values(); out.push(JSON.stringify(it.next()), JSON.stringify(it.next()));
p.delete("a"); p.delete("c"); p.delete("d"); out.push(JSON.stringify(it.next()), JSON.stringify(it.next()));
return out.join("|");`);
addParams("errors", `const out = [];
const t = (f) => { try { f(); return "ok"; } catch (e) { return e.name + ": " + e.message; } };
const p = new URLSearchParams();
out.push(t(() => p.append("a")), t(() => p.get()), t(() => p.set("a")), t(() => p.forEach()), t(() => p.forEach(1)));
out.push(t(() => new URL()), t(() => new URL("x")), t(() => new URL("x", "y")), t(() => URL.canParse()));
try { new URL("nope", "also nope"); } catch (e) { out.push(e.code, e.input, e.base, e instanceof TypeError); }
try { new URL("http://[::"); } catch (e) { out.push(e.code, e.input, "base" in e); }
const u = new URL("http://h/"); out.push(t(() => { u.href = "bad"; }), u.href);
return out.join("|");`);
addParams("linked to its URL", `const u = new URL("http://h/p?a=1&b=2#f"); const p = u.searchParams; const out = [p === u.searchParams];
p.append("c", "x y"); out.push(u.href, u.search);
u.search = "?z=9"; out.push(p.toString(), p.get("z"), p.size);
u.href = "http://h/?k=v"; out.push(p.get("k"), p.size);
p.delete("k"); out.push(u.href, u.search);
u.search = "a=b"; p.sort(); out.push(u.href);
u.hash = "x"; p.set("ä", "ö"); out.push(u.href);
const o = new URL("sc:opaque  ?q=1#f"); o.hash = ""; o.searchParams.delete("q"); out.push(JSON.stringify(o.href), JSON.stringify(o.pathname));
const o2 = new URL("sc:opaque  ?q=1"); o2.searchParams.delete("q"); out.push(JSON.stringify(o2.href));
u.search = ""; out.push(p.size, u.href);
return out.join("|");`);
addParams("URL statics and conversions", `const out = [];
out.push(URL.canParse("http://x"), URL.canParse("x"), URL.canParse("x", "http://y/"), URL.canParse("x", "bad"));
out.push(URL.parse("x", "http://y/a/").href, URL.parse("nope"), URL.parse("http://[::1]") instanceof URL);
const u = new URL("https://ü.com:8443/a b?c d#e f");
out.push(JSON.stringify(u), JSON.stringify({ u }), String(u), u.toString(), u + "", Object.prototype.toString.call(u));
out.push(new URL(new URL("http://a/b")).href, new URL({ toString: () => "http://obj/" }).href, new URL("x", new URL("http://base/dir/")).href);
out.push(Object.keys(u).length, typeof URL.prototype.toJSON, URL.name, URLSearchParams.name, URL.length, URLSearchParams.length);
out.push(new URL("blob:https://a.com:8/x").origin, new URL("blob:sc://a/x").origin, new URL("blob:nope").origin, new URL("blob:http://[::1]/x").origin);
out.push(new URL("http://h/\ud800\udfff\ud800").pathname, new URL("http://h/?\udc00").search);
return out.join("|");`);
addParams("setter sequences", `const u = new URL("http://u:p@h:81/a?b#c"); const out = [];
u.protocol = "https"; out.push(u.href); u.port = "443"; out.push(u.href); u.protocol = "http"; out.push(u.href);
u.host = "x:99999"; out.push(u.href); u.hostname = "[1::0:1]"; out.push(u.href); u.username = ""; u.password = ""; out.push(u.href);
u.pathname = ""; out.push(u.href); u.search = ""; u.hash = ""; out.push(u.href);
const f = new URL("file:///C:/x"); f.host = "srv"; out.push(f.href); f.host = "localhost"; out.push(f.href); f.port = "8"; f.username = "u"; out.push(f.href);
const s = new URL("sc://h"); s.host = ""; out.push(s.href); s.pathname = "p"; out.push(s.href); s.protocol = "http"; out.push(s.href);
const n = new URL("sc:/p"); n.pathname = "//x"; out.push(n.href, n.pathname); n.host = "h"; out.push(n.href);
return out.join("|");`);

for (const c of params) {
  c.want = await new AsyncFunction(c.src)();
  if (typeof c.want !== "string") throw new Error(c.name + ": not a string");
}
process.stdout.write(JSON.stringify({ parse, setters, params }, null, 1) + "\n");
