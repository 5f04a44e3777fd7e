// Installs coderun's web-platform globals (runtime/web.go) on G, for the
// prelude (runtime/prelude.js), which calls it once, while the snapshot is
// built, with what it needs of the prelude: the global object, the host
// function and the timers. The protocol's numbers (OP_*) are declared
// around it, as around the prelude.
//
// Each name is an accessor until its first get or set, which replaces it
// with a data property, as Web IDL defines a global; the first get asks
// the host for the factory of its group (OP_WEB) and defines the group's
// names still unused.
//
// It is a function of its own, given to the prelude as an argument, so
// that the engine can be built without it (runtime/build.go,
// preludeSourceWith): the snapshot gives the atoms of the prelude without
// it the indices programs name cheaply, and its own names the ones after
// (runtime/atomorder.go), so that a run that uses no web global compiles
// at the fuel it would without them (TestWebGlobalsCostUnusedNothing).
(function (G, host, setTimeout, clearTimeout) {
  "use strict";
  const ObjectDefineProperty = Object.defineProperty, ObjectFreeze = Object.freeze;
  const ObjectSetPrototypeOf = Object.setPrototypeOf, ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ReflectApply = Reflect.apply, Number_ = Number, String_ = String;
  const names = ["TextEncoder", "TextDecoder", "structuredClone", "crypto", "Event", "EventTarget", "AbortController", "AbortSignal", "URL", "URLSearchParams", "Intl"];
  const groups = [0, 0, 1, 2, 3, 3, 3, 3, 4, 4, 5];
  // Intl's other groups follow its own in runtime/web.go's list
  // (web/intl_more.js, then web/intl_date.js); the Intl group loads them
  // with web(g).
  const INTL = groups[names.indexOf("Intl")];
  const webLib = ObjectFreeze({
    __proto__: null, host, OP_RANDOM, OP_TIME_ZONE, setTimeout, clearTimeout, DOMException: G.DOMException,
    web: (g) => load(g), INTL_MORE: INTL + 1, INTL_DATE: INTL + 2,
  });
  const loaded = ObjectSetPrototypeOf([], null), getters = ObjectSetPrototypeOf([], null), hasOwn = Object.hasOwn;
  const define = (name, value) => ObjectDefineProperty(G, name, { __proto__: null, value, writable: true, configurable: true });
  const load = (g) => {
    let o = loaded[g];
    if (o !== undefined) return o;
    o = loaded[g] = ReflectApply(host(0, 0, 0, undefined, OP_WEB, g), undefined, [webLib]);
    for (let i = 0; i < names.length; i++) {
      const d = groups[i] === g ? ObjectGetOwnPropertyDescriptor(G, names[i]) : undefined;
      if (d !== undefined && hasOwn(d, "get") && d.get === getters[i]) define(names[i], o[names[i]]);
    }
    return o;
  };
  for (let i = 0; i < names.length; i++) {
    const name = names[i], g = groups[i];
    getters[i] = function () { return load(g)[name]; };
    ObjectDefineProperty(G, name, { __proto__: null, get: getters[i], set(v) { define(name, v); }, configurable: true });
  }
  // The locale-sensitive methods of the built-ins format with the Intl
  // group (https://tc39.es/ecma402/#sup-properties-of-the-number-prototype-object
  // and on), which they load when first called: one closure per method,
  // sharing its code, with the built-in's name and length.
  const intl = (k, name, length) => {
    const f = { [name](a, b, c) { return load(INTL)[k](this, a, b, c); } }[name];
    ObjectDefineProperty(f, "length", { __proto__: null, value: length });
    return { __proto__: null, value: f, writable: true, configurable: true };
  };
  ObjectDefineProperty(Number_.prototype, "toLocaleString", intl("numberToLocaleString", "toLocaleString", 0));
  ObjectDefineProperty(BigInt.prototype, "toLocaleString", intl("bigintToLocaleString", "toLocaleString", 0));
  ObjectDefineProperty(Date.prototype, "toLocaleString", intl("dateToLocaleString", "toLocaleString", 0));
  ObjectDefineProperty(Date.prototype, "toLocaleDateString", intl("dateToLocaleDateString", "toLocaleDateString", 0));
  ObjectDefineProperty(Date.prototype, "toLocaleTimeString", intl("dateToLocaleTimeString", "toLocaleTimeString", 0));
  ObjectDefineProperty(String_.prototype, "localeCompare", intl("localeCompare", "localeCompare", 1));
})
