// inspect_kind.js: guest-side console rendering (contract §5), part 2 of 3:
// what an object is and how its head reads. describe classifies a value
// (its kind by prototype chain and brand check, its constructor name and
// toStringTag), getPrefix/getCtxStyle word the "Name(size) [tag] " prefix,
// and the bases of functions, classes, regexps, boxed primitives and errors
// (name: message and the engine's stack frames) are built here.
//
// Part of the factory body that serialize/js.go joins from inspect.js (the
// captured intrinsics and the header comment on what is rendered and how
// safely), this file and inspect_walk.js; see inspect.js.

  // ---- classification ----------------------------------------------------------------
  function kindByProto(p) {
    if (p === MapPrototype) return T_MAP;
    if (p === SetPrototype) return T_SET;
    if (p === TypedArrayPrototype) return T_TYPED;
    if (p === DatePrototype) return T_DATE;
    if (p === RegExpPrototype) return T_REGEXP;
    if (p === ErrorPrototype) return T_ERROR;
    if (p === ArrayBufferPrototype) return T_ARRAYBUFFER;
    if (p === DataViewPrototype) return T_DATAVIEW;
    if (p === PromisePrototype) return T_PROMISE;
    if (p === WeakMapPrototype) return T_WEAKMAP;
    if (p === WeakSetPrototype) return T_WEAKSET;
    if (p === NumberPrototype) return T_NUMBER;
    if (p === StringPrototype) return T_STRING;
    if (p === BooleanPrototype) return T_BOOLEAN;
    if (p === SymbolPrototype) return T_SYMBOL;
    if (p === BigIntPrototype) return T_BIGINT;
    if (p !== null && p === SharedArrayBufferPrototype) return T_SHAREDARRAYBUFFER;
    return -1;
  }

  // brandCheck confirms that value really has the internal slots of kind.
  function brandCheck(value, kind) {
    try {
      switch (kind) {
        case T_MAP: MapSize(value); return true;
        case T_SET: SetSize(value); return true;
        case T_TYPED: return typeof TypedArrayTag(value) === "string";
        case T_DATE: DatePrototypeGetTime(value); return true;
        case T_REGEXP: return value !== RegExpPrototype && typeof RegExpSource(value) === "string";
        case T_ARRAYBUFFER: ArrayBufferByteLength(value); return true;
        case T_SHAREDARRAYBUFFER: SharedArrayBufferByteLength(value); return true;
        case T_DATAVIEW: DataViewByteLength(value); return true;
        case T_WEAKMAP: WeakMapHas(value, ObjectPrototype); return true;
        case T_WEAKSET: WeakSetHas(value, ObjectPrototype); return true;
        case T_NUMBER: NumberPrototypeValueOf(value); return true;
        case T_STRING: StringPrototypeValueOf(value); return true;
        case T_BOOLEAN: BooleanPrototypeValueOf(value); return true;
        case T_SYMBOL: SymbolPrototypeValueOf(value); return true;
        case T_BIGINT: BigIntPrototypeValueOf(value); return true;
        case T_ERROR: return value !== ErrorPrototype;
        case T_PROMISE: return value !== PromisePrototype;
      }
    } catch (e) {
      // not that kind
    }
    return false;
  }

  // kindOfNullProto identifies builtins whose prototype chain says nothing
  // (a null prototype), as Node does through internal checks: the builtin tag
  // of Object.prototype.toString (read only when the value has no own
  // toStringTag, so no user code runs), typed arrays, DataViews, Maps and
  // Sets. Other builtins with a null prototype (WeakMap, ArrayBuffer, boxed
  // Symbol/BigInt, Promise) render as plain null-prototype objects.
  function kindOfNullProto(value) {
    if (gopd(value, SymbolToStringTag) === undefined) {
      const t = ObjectPrototypeToString(value);
      if (t === "[object Error]") return T_ERROR;
      if (t === "[object Date]") return T_DATE;
      if (t === "[object RegExp]") return T_REGEXP;
      if (t === "[object Number]") return T_NUMBER;
      if (t === "[object String]") return T_STRING;
      if (t === "[object Boolean]") return T_BOOLEAN;
      if (t !== "[object Object]") return T_OBJECT;
    }
    if (typeof TypedArrayTag(value) === "string") return T_TYPED;
    if (ArrayBufferIsView(value)) return T_DATAVIEW;
    if (brandCheck(value, T_MAP)) return T_MAP;
    if (brandCheck(value, T_SET)) return T_SET;
    return T_OBJECT;
  }

  function internalName(kind) {
    switch (kind) {
      case T_ARRAY: return "Array";
      case T_FUNCTION: return "Function";
      case T_MAP: return "Map";
      case T_SET: return "Set";
      case T_DATE: return "Date";
      case T_REGEXP: return "RegExp";
      case T_ERROR: return "Error";
      case T_ARRAYBUFFER: return "ArrayBuffer";
      case T_SHAREDARRAYBUFFER: return "SharedArrayBuffer";
      case T_DATAVIEW: return "DataView";
      case T_PROMISE: return "Promise";
      case T_WEAKMAP: return "WeakMap";
      case T_WEAKSET: return "WeakSet";
      case T_NUMBER: return "Number";
      case T_STRING: return "String";
      case T_BOOLEAN: return "Boolean";
      case T_SYMBOL: return "Symbol";
      case T_BIGINT: return "BigInt";
    }
    return "Object";
  }

  // protoInfo returns what a prototype P contributes to describe: the
  // constructor name it establishes (a string; undefined when it has none;
  // null when that depends on the value), its own toStringTag (undefined when
  // it has none) and the builtin kind it marks. Results are cached per render.
  function protoInfo(ctx, p) {
    const cache = ctx.protoCache;
    for (let i = 0; i < cache.length; i += 2) {
      if (cache[i] === p) return cache[i + 1];
    }
    let ctor;
    let ctorFn = null;
    if (p === ObjectPrototype) {
      ctor = "Object";
    } else if (p === FunctionPrototype) {
      ctor = "Function";
    } else {
      const d = gopd(p, "constructor");
      if (d !== undefined && typeof d.value === "function") {
        const name = functionName(d.value);
        if (name !== "") {
          const pd = gopd(d.value, "prototype");
          if (pd !== undefined && pd.value === p) {
            ctor = name; // instanceof holds for every value below p
          } else {
            ctor = null;
            ctorFn = d.value;
          }
        }
      }
    }
    let tag;
    const td = gopd(p, SymbolToStringTag);
    if (td !== undefined) tag = typeof td.value === "string" ? td.value : "";
    const info = {
      __proto__: null, ctor: ctor, ctorFn: ctorFn, tag: tag, kind: kindByProto(p),
    };
    push(cache, p);
    push(cache, info);
    return info;
  }

  // describe fills info with the constructor name (Node's getConstructorName:
  // string, or null for a null prototype), the kind and the toStringTag.
  function describe(ctx, value, recurseTimes, info) {
    let ctor;
    let kind = -1;
    let tag;
    // The value's own constructor and toStringTag come first.
    {
      const d = gopd(value, "constructor");
      if (d !== undefined && typeof d.value === "function") {
        const name = functionName(d.value);
        if (name !== "" && hasInstance(value, d.value)) ctor = name;
      }
      const td = gopd(value, SymbolToStringTag);
      if (td !== undefined) {
        tag = typeof td.value === "string" && !td.enumerable ? td.value : "";
      }
    }
    const firstProto = ObjectGetPrototypeOf(value);
    let obj = firstProto;
    for (let n = 0; obj !== null && n < 10000; n++) {
      const pi = protoInfo(ctx, obj);
      if (ctor === undefined) {
        if (pi.ctor !== null) {
          ctor = pi.ctor;
        } else if (hasInstance(value, pi.ctorFn)) {
          ctor = functionName(pi.ctorFn);
        }
      }
      if (tag === undefined) tag = pi.tag;
      if (kind === -1) kind = pi.kind;
      obj = ObjectGetPrototypeOf(obj);
    }
    if (tag === undefined) tag = "";

    if (typeof value === "function") {
      kind = T_FUNCTION;
    } else if (ArrayIsArray(value)) {
      kind = T_ARRAY;
    } else if (firstProto === null) {
      kind = kindOfNullProto(value);
    } else if (kind !== -1 && !brandCheck(value, kind)) {
      kind = T_OBJECT;
    } else if (kind === -1) {
      kind = T_OBJECT;
    }

    if (ctor === undefined) {
      if (firstProto === null) {
        ctor = null;
      } else {
        const res = internalName(kind);
        if (recurseTimes > ctx.depth) {
          ctor = res + " <Complex prototype>";
        } else {
          const inner = { __proto__: null, ctor: null, kind: 0, tag: "" };
          describe(ctx, firstProto, recurseTimes + 1, inner);
          if (inner.ctor === null) {
            const sub = newContext(-1);
            ctor = res + " <" + formatValue(sub, firstProto, 0) + ">";
          } else {
            ctor = res + " <" + inner.ctor + ">";
          }
        }
      }
    }
    info.ctor = ctor;
    info.kind = kind;
    info.tag = tag;
  }

  function getPrefix(constructor, tag, fallback, size) {
    if (constructor === null) {
      if (tag !== "" && fallback !== tag) {
        return "[" + fallback + size + ": null prototype] [" + tag + "] ";
      }
      return "[" + fallback + size + ": null prototype] ";
    }
    if (tag !== "" && constructor !== tag) {
      return constructor + size + " [" + tag + "] ";
    }
    return constructor + size + " ";
  }

  function getCtxStyle(kind, constructor, tag) {
    let fallback = "";
    if (constructor === null) {
      fallback = internalName(kind);
      if (fallback === tag) fallback = "Object";
    }
    return getPrefix(constructor, tag, fallback, "");
  }

  // ---- functions, errors, boxed primitives, regexps -------------------------------------------
  function getClassBase(value, constructor, tag) {
    const d = gopd(value, "name");
    let name = d !== undefined && typeof d.value === "string" ? d.value : "";
    if (name === "") name = "(anonymous)";
    let base = "class " + name;
    if (constructor !== "Function" && constructor !== null) base += " [" + constructor + "]";
    if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
    if (constructor !== null) {
      const superName = dataProp(ObjectGetPrototypeOf(value), "name");
      if (typeof superName === "string" && superName !== "") base += " extends " + superName;
    } else {
      base += " extends [null prototype]";
    }
    return "[" + base + "]";
  }

  function getFunctionBase(value, constructor, tag) {
    let stringified = "";
    try {
      stringified = FunctionPrototypeToString(value);
    } catch (e) {
      // a Proxy or an exotic callable: not a class
    }
    if (startsWith(stringified, "class") && endsWith(stringified, "}")) {
      const slice = StringPrototypeSlice(stringified, 5, -1);
      const bracketIndex = StringPrototypeIndexOf(slice, "{");
      if (bracketIndex !== -1 &&
          (!includes(StringPrototypeSlice(slice, 0, bracketIndex), "(") ||
           test(CLASS_RE, slice))) {
        return getClassBase(value, constructor, tag);
      }
    }
    const proto = ObjectGetPrototypeOf(value);
    let type = "Function";
    if (proto === GeneratorFunctionPrototype) type = "GeneratorFunction";
    else if (proto === AsyncFunctionPrototype) type = "AsyncFunction";
    else if (proto === AsyncGeneratorFunctionPrototype) type = "AsyncGeneratorFunction";
    let base = "[" + type;
    if (constructor === null) base += " (null prototype)";
    const name = functionName(value);
    base += name === "" ? " (anonymous)" : ": " + name;
    base += "]";
    if (constructor !== type && constructor !== null) base += " " + constructor;
    if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
    return base;
  }

  function regExpToString(value) {
    let flags = "";
    for (let i = 0; i < RegExpFlagGetters.length; i += 2) {
      if (RegExpFlagGetters[i](value)) flags += RegExpFlagGetters[i + 1];
    }
    return "/" + RegExpSource(value) + "/" + flags;
  }

  function getBoxedBase(ctx, value, kind, constructor, tag) {
    let type;
    let prim;
    switch (kind) {
      case T_NUMBER: type = "Number"; prim = NumberPrototypeValueOf(value); break;
      case T_STRING: type = "String"; prim = StringPrototypeValueOf(value); break;
      case T_BOOLEAN: type = "Boolean"; prim = BooleanPrototypeValueOf(value); break;
      case T_BIGINT: type = "BigInt"; prim = BigIntPrototypeValueOf(value); break;
      default: type = "Symbol"; prim = SymbolPrototypeValueOf(value); break;
    }
    let base = "[" + type;
    if (type !== constructor) {
      base += constructor === null ? " (null prototype)" : " (" + constructor + ")";
    }
    base += ": " + formatPrimitive(ctx, prim) + "]";
    if (tag !== "" && tag !== constructor) base += " [" + tag + "]";
    return base;
  }

  // primitiveText renders a primitive read from an error's data property the
  // way String() would, without calling user code for objects.
  function primitiveText(v) {
    const t = typeof v;
    if (t === "string") return v;
    if (t === "symbol") return SymbolPrototypeToString(v);
    if (t === "object" || t === "function") return null;
    return "" + v;
  }

  function improveStack(stack, constructor, name, tag) {
    let len = name.length;
    if (constructor === null ||
        (endsWith(name, "Error") && startsWith(stack, name) &&
         (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
      let fallback = "Error";
      if (constructor === null) {
        ERROR_NAME_RE.lastIndex = 0;
        let start = RegExpPrototypeExec(ERROR_NAME_RE, stack);
        if (start === null) {
          ERROR_NAME_ONLY_RE.lastIndex = 0;
          start = RegExpPrototypeExec(ERROR_NAME_ONLY_RE, stack);
        }
        fallback = (start !== null && start[1]) || "";
        len = fallback.length;
        fallback = fallback || "Error";
      }
      const prefix = StringPrototypeSlice(getPrefix(constructor, tag, fallback, ""), 0, -1);
      if (name !== prefix) {
        if (includes(prefix, name)) {
          if (len === 0) stack = prefix + ": " + stack;
          else stack = prefix + StringPrototypeSlice(stack, len);
        } else {
          stack = prefix + " [" + name + "]" + StringPrototypeSlice(stack, len);
        }
      }
    }
    return stack;
  }

  // formatError renders err as `name: message` followed by the engine's stack
  // frames, adjusted like Node (class name, null prototype, brackets when
  // there are no frames, indentation). keys/descs may lose name/message/stack
  // and gain cause/errors.
  function formatError(ctx, err, constructor, tag, keys, descs) {
    const nameVal = dataProp(err, "name");
    const msgVal = dataProp(err, "message");
    let name = nameVal === undefined || nameVal === null ? "Error" : primitiveText(nameVal);
    if (name === null) name = "Error";
    let msg = msgVal === undefined ? "" : primitiveText(msgVal);
    if (msg === null) msg = "";
    let header;
    if (name === "") header = msg;
    else if (msg === "") header = name;
    else header = name + ": " + msg;

    let stack = header;
    const frames = stackProp(err);
    if (typeof frames === "string" && frames !== "") {
      let f = frames;
      while (f.length > 0 && f[f.length - 1] === "\n") f = StringPrototypeSlice(f, 0, -1);
      if (startsWith(f, header + "\n")) stack = f;
      else if (f !== "" && f !== header) stack = header + "\n" + f;
    }

    // Drop keys whose values are already part of the text.
    if (keys.length !== 0) {
      const k2 = list();
      const d2 = list();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (k === "name" || k === "message" || k === "stack") {
          const v = descs[i].value;
          if (typeof v === "string" && includes(stack, v)) continue;
          // The frames rendered above, less their trailing newlines: on
          // QuickJS-NG 0.16 assigning err.stack makes an own enumerable
          // property (Node's is never enumerable).
          if (k === "stack" && v === frames && typeof v === "string") continue;
        }
        push(k2, k);
        push(d2, descs[i]);
      }
      keys.length = 0;
      descs.length = 0;
      for (let i = 0; i < k2.length; i++) {
        push(keys, k2[i]);
        push(descs, d2[i]);
      }
    }
    const extra = ["cause", "errors"];
    for (let j = 0; j < 2; j++) {
      const k = extra[j];
      let listed = false;
      for (let i = 0; i < keys.length; i++) if (keys[i] === k) listed = true;
      if (listed) continue;
      const d = gopd(err, k);
      if (d === undefined) continue;
      if (k === "errors" && !ArrayIsArray(d.value)) continue;
      push(keys, k);
      push(descs, d);
    }

    stack = improveStack(stack, constructor, name, tag);

    let pos = -1;
    if (msg !== "") {
      pos = StringPrototypeIndexOf(stack, msg);
      if (pos !== -1) pos += msg.length;
    }
    const stackStart = StringPrototypeIndexOf(stack, "\n    at", pos === -1 ? 0 : pos);
    if (stackStart === -1) stack = "[" + stack + "]";
    if (ctx.indentationLvl !== 0) stack = replaceNewlines(stack, "\n" + spaces(ctx.indentationLvl));
    return stack;
  }
