// inspect_walk.js: guest-side console rendering (contract §5), part 3 of 3:
// the walk over a value. It collects the keys to show, formats the entries
// of arrays, typed arrays, Sets, Maps and ArrayBuffers and the properties,
// lays the entries out (grouping into columns, the 80-column break, the
// "compact 3" rule), tracks cycles (<ref *1>/[Circular *1]) in formatValue
// and formatRaw, and ends with the API the factory returns.
//
// Part of the factory body that serialize/js.go joins from inspect.js (the
// captured intrinsics and the header comment on what is rendered and how
// safely), inspect_kind.js and this file; see inspect.js.

  // ---- keys ------------------------------------------------------------------------------
  // Keys are kept as two parallel lists: the key and its descriptor (or a
  // pre-rendered value for the synthetic keys of ArrayBuffer and DataView).

  // ownEnumerable appends the enumerable own keys of value, strings then
  // symbols (Node's Object.keys + enumerable symbols), skipping the first
  // `skip` keys of the own-key list.
  function ownEnumerable(value, keys, descs, skip) {
    const own = ReflectOwnKeys(value);
    for (let i = skip; i < own.length; i++) {
      const k = own[i];
      const d = gopd(value, k);
      if (d !== undefined && d.enumerable) {
        push(keys, k);
        push(descs, d);
      }
    }
  }

  // indexKeyCount returns how many leading own keys of an array-like value are
  // array indices (own keys list indices first, in ascending order).
  function isIndexKey(k, limit) {
    if (typeof k !== "string" || !test(INDEX_RE, k)) return false;
    const n = +k;
    return n < limit;
  }

  function nonIndexEnumerable(value, keys, descs, limit) {
    const own = ReflectOwnKeys(value);
    let start = 0;
    // Fast path: dense arrays list exactly the indices 0..limit-1 first (own
    // keys come sorted, indices first).
    if (limit <= own.length && (limit === 0 || own[limit - 1] === "" + (limit - 1))) {
      start = limit;
    } else {
      while (start < own.length && isIndexKey(own[start], limit)) start++;
    }
    for (let i = start; i < own.length; i++) {
      const k = own[i];
      if (k === "length") continue;
      const d = gopd(value, k);
      if (d !== undefined && d.enumerable) {
        push(keys, k);
        push(descs, d);
      }
    }
  }

  // ---- containers -------------------------------------------------------------------------
  function remainingText(remaining) {
    return "... " + remaining + " more item" + (remaining > 1 ? "s" : "");
  }

  // formatArray also records in num how many leading elements are numbers
  // or bigints (num.prefix) out of how many it looked at (num.scanned), for
  // the column alignment in groupArrayElements.
  function formatArray(ctx, value, recurseTimes, output, num) {
    const valLen = value.length;
    const len = MathMin(MAX_ARRAY, valLen);
    const remaining = valLen - len;
    for (let i = 0; i < len; i++) {
      const d = gopd(value, i);
      if (d === undefined) return formatSparseArray(ctx, value, recurseTimes, len, output, i);
      if (num.prefix === i) {
        const t = typeof d.value;
        if (t === "number" || t === "bigint") num.prefix = i + 1;
      }
      num.scanned = i + 1;
      push(output, formatPropertyValue(ctx, d, recurseTimes));
    }
    if (remaining > 0) push(output, remainingText(remaining));
    return output;
  }

  // formatSparseArray continues formatArray from index i, the first hole.
  function formatSparseArray(ctx, value, recurseTimes, maxLength, output, i) {
    const own = ReflectOwnKeys(value);
    let index = i;
    for (; i < own.length && output.length < maxLength; i++) {
      const key = own[i];
      if (typeof key !== "string" || !test(INDEX_RE, key)) break;
      const tmp = +key;
      if (tmp > 4294967294) break;
      if ("" + index !== key) {
        const emptyItems = tmp - index;
        push(output, "<" + emptyItems + " empty item" + (emptyItems > 1 ? "s" : "") + ">");
        index = tmp;
        if (output.length === maxLength) break;
      }
      const d = gopd(value, key);
      push(output, d === undefined ? "undefined" : formatPropertyValue(ctx, d, recurseTimes));
      index++;
    }
    const remaining = value.length - index;
    if (output.length !== maxLength) {
      if (remaining > 0) {
        push(output, "<" + remaining + " empty item" + (remaining > 1 ? "s" : "") + ">");
      }
    } else if (remaining > 0) {
      push(output, remainingText(remaining));
    }
    return output;
  }

  function formatTypedArray(ctx, value, length, output) {
    const maxLength = MathMin(MAX_ARRAY, length);
    for (let i = 0; i < maxLength; i++) {
      const v = value[i];
      push(output, typeof v === "bigint" ? "" + v + "n" : formatNumber(v));
    }
    if (length > maxLength) push(output, remainingText(length - maxLength));
    return output;
  }

  function formatSetEntries(ctx, value, recurseTimes, output) {
    const size = SetSize(value);
    const maxLength = MathMin(MAX_ARRAY, size);
    ctx.indentationLvl += 2;
    const it = SetValues(value);
    for (let i = 0; i < maxLength; i++) {
      const r = SetIteratorNext(it);
      if (r.done) break;
      push(output, formatValue(ctx, r.value, recurseTimes));
    }
    if (size > maxLength) push(output, remainingText(size - maxLength));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatMapEntries(ctx, value, recurseTimes, output) {
    const size = MapSize(value);
    const maxLength = MathMin(MAX_ARRAY, size);
    ctx.indentationLvl += 2;
    const it = MapEntries(value);
    for (let i = 0; i < maxLength; i++) {
      const r = MapIteratorNext(it);
      if (r.done) break;
      const entry = r.value;
      const k = formatValue(ctx, entry[0], recurseTimes);
      push(output, k + " => " + formatValue(ctx, entry[1], recurseTimes));
    }
    if (size > maxLength) push(output, remainingText(size - maxLength));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatArrayBufferContents(buf, output) {
    let bytes;
    try {
      bytes = new Uint8ArrayCtor(buf);
    } catch (e) {
      push(output, "(detached)");
      return output;
    }
    const hex = "0123456789abcdef";
    const len = TypedArrayLength(bytes);
    const n = MathMin(MAX_ARRAY, len);
    const parts = list();
    for (let i = 0; i < n; i++) {
      const b = bytes[i];
      push(parts, hex[b >> 4] + hex[b & 15]);
    }
    let str = join(parts, " ");
    const remaining = len - MAX_ARRAY;
    if (remaining > 0) str += " ... " + remaining + " more byte" + (remaining > 1 ? "s" : "");
    push(output, "[Uint8Contents]: <" + str + ">");
    return output;
  }

  // ---- properties ------------------------------------------------------------------------------
  function formatPropertyValue(ctx, desc, recurseTimes) {
    const v = desc.value;
    if (v !== undefined) {
      ctx.indentationLvl += 2;
      const str = formatValue(ctx, v, recurseTimes);
      ctx.indentationLvl -= 2;
      return str;
    }
    if (desc.get !== undefined) return desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
    if (desc.set !== undefined) return "[Setter]";
    return "undefined";
  }

  function formatProperty(ctx, key, desc, recurseTimes) {
    const str = formatPropertyValue(ctx, desc, recurseTimes);
    let name;
    if (typeof key === "symbol") {
      name = "[" + escapeWith(ESCAPE_RE, SymbolPrototypeToString(key)) + "]";
    } else if (key === "__proto__") {
      name = "['__proto__']";
    } else if (desc.enumerable === false) {
      name = "[" + escapeWith(ESCAPE_RE, key) + "]";
    } else if (test(KEY_RE, key)) {
      name = key;
    } else {
      name = strEscape(key);
    }
    return name + ": " + str;
  }

  // ---- layout ------------------------------------------------------------------------------------
  function groupArrayElements(ctx, output, value, allNumeric, num) {
    let totalLength = 0;
    let maxLength = 0;
    let outputLength = output.length;
    if (MAX_ARRAY < output.length) outputLength--; // leave "... more items" out
    const separatorSpace = 2;
    const dataLen = list();
    // One test for the common case where every entry is printable ASCII.
    const ascii = !test(NOT_PRINTABLE_ASCII_RE, join(output, ""));
    for (let i = 0; i < outputLength; i++) {
      const len = ascii ? output[i].length : stringWidth(output[i]);
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    if (actualMax * 3 + ctx.indentationLvl < BREAK_LENGTH &&
        (totalLength / actualMax > 5 || maxLength <= 6)) {
      const averageBias = MathSqrt(actualMax - totalLength / output.length);
      const biasedMax = MathMax(actualMax - 3 - averageBias, 1);
      const columns = MathMin(
        MathRound(MathSqrt(2.5 * biasedMax * outputLength) / biasedMax),
        MathFloor((BREAK_LENGTH - ctx.indentationLvl) / actualMax),
        COMPACT * 4,
        15);
      if (columns <= 1) return output;
      const maxLineLength = list();
      for (let i = 0; i < columns; i++) {
        let lineLength = 0;
        for (let j = i; j < outputLength; j += columns) {
          if (dataLen[j] > lineLength) lineLength = dataLen[j];
        }
        maxLineLength[i] = lineLength + separatorSpace;
      }
      const padStart = allNumeric(value, output.length, num);
      const tmp = list();
      for (let i = 0; i < outputLength; i += columns) {
        const max = MathMin(i + columns, outputLength);
        let str = "";
        let j = i;
        for (; j < max - 1; j++) {
          const cell = output[j] + ", ";
          const pad = maxLineLength[j - i] + output[j].length - dataLen[j] - cell.length;
          str += padStart ? spaces(pad) + cell : cell + spaces(pad);
        }
        if (padStart) {
          const pad = maxLineLength[j - i] + output[j].length - dataLen[j] -
            separatorSpace - output[j].length;
          str += spaces(pad) + output[j];
        } else {
          str += output[j];
        }
        push(tmp, str);
      }
      if (MAX_ARRAY < output.length) push(tmp, output[outputLength]);
      return tmp;
    }
    return output;
  }

  // arrayAllNumeric: are value[0..n) all numbers or bigints (reading data
  // properties only; holes and accessors count as not numeric)? num holds
  // what formatArray already saw.
  function arrayAllNumeric(value, n, num) {
    if (n <= num.prefix) return true;
    if (num.prefix < num.scanned) return false;
    for (let i = num.scanned; i < n; i++) {
      const d = gopd(value, i);
      if (d === undefined) return false;
      const t = typeof d.value;
      if (t !== "number" && t !== "bigint") return false;
    }
    return true;
  }
  function typedAllNumeric(value, n, num) {
    const len = TypedArrayLength(value);
    return n <= len;
  }

  function isBelowBreakLength(output, start, base) {
    let totalLength = output.length + start;
    if (totalLength + output.length > BREAK_LENGTH) return false;
    for (let i = 0; i < output.length; i++) {
      totalLength += output[i].length;
      if (totalLength > BREAK_LENGTH) return false;
    }
    return base === "" || !includes(base, "\n");
  }

  function reduceToSingleString(ctx, output, base, braces0, braces1, extrasType,
    recurseTimes, value, allNumeric, num) {
    const entries = output.length;
    if (extrasType === K_ARRAY_EXTRAS && entries > 6) {
      output = groupArrayElements(ctx, output, value, allNumeric, num);
    }
    if (ctx.currentDepth - recurseTimes < COMPACT && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces0.length + base.length + 10;
      if (isBelowBreakLength(output, start, base)) {
        const joined = join(output, ", ");
        if (!includes(joined, "\n")) {
          return (base !== "" ? base + " " : "") + braces0 + " " + joined + " " + braces1;
        }
      }
    }
    const indentation = "\n" + spaces(ctx.indentationLvl);
    return (base !== "" ? base + " " : "") + braces0 + indentation + "  " +
      join(output, "," + indentation + "  ") + indentation + braces1;
  }

  // ---- the main formatter --------------------------------------------------------------------------
  function newContext(depth) {
    return {
      __proto__: null,
      depth: depth,
      indentationLvl: 0,
      currentDepth: 0,
      seen: list(),
      circular: list(),
      protoCache: list(),
    };
  }

  function fallbackText(value) {
    return typeof value === "function" ? "[object Function]" : "[object Object]";
  }

  function formatValue(ctx, value, recurseTimes) {
    const t = typeof value;
    if (t !== "object" && t !== "function") return formatPrimitive(ctx, value);
    if (value === null) return "null";
    const seen = ctx.seen;
    for (let i = 0; i < seen.length; i++) {
      if (seen[i] === value) {
        const circular = ctx.circular;
        let index = 0;
        for (let j = 0; j < circular.length; j++) {
          if (circular[j] === value) index = j + 1;
        }
        if (index === 0) {
          push(circular, value);
          index = circular.length;
        }
        return "[Circular *" + index + "]";
      }
    }
    const savedIndentation = ctx.indentationLvl;
    const savedSeen = seen.length;
    try {
      return formatRaw(ctx, value, recurseTimes);
    } catch (e) {
      ctx.indentationLvl = savedIndentation;
      seen.length = savedSeen;
      return fallbackText(value);
    }
  }

  function formatRaw(ctx, value, recurseTimes) {
    const info = { __proto__: null, ctor: null, kind: 0, tag: "" };
    describe(ctx, value, recurseTimes, info);
    const constructor = info.ctor;
    const kind = info.kind;
    const tag = info.tag;

    const keys = list();
    const descs = list();
    let base = "";
    let braces0 = "{";
    let braces1 = "}";
    let extrasType = K_OBJECT;
    let entries = null; // function (ctx, value, recurseTimes, output) filling output
    let allNumeric = arrayAllNumeric;
    const num = { __proto__: null, prefix: 0, scanned: 0 };
    let typedLength = 0;

    if (kind === T_ARRAY) {
      const len = value.length;
      const prefix = (constructor !== "Array" || tag !== "") ?
        getPrefix(constructor, tag, "Array", "(" + len + ")") : "";
      nonIndexEnumerable(value, keys, descs, len);
      braces0 = prefix + "[";
      braces1 = "]";
      if (len === 0 && keys.length === 0) return braces0 + "]";
      extrasType = K_ARRAY_EXTRAS;
      entries = formatArray;
    } else if (kind === T_SET) {
      const size = SetSize(value);
      const prefix = getPrefix(constructor, tag, "Set", "(" + size + ")");
      ownEnumerable(value, keys, descs, 0);
      if (size === 0 && keys.length === 0) return prefix + "{}";
      braces0 = prefix + "{";
      entries = formatSetEntries;
    } else if (kind === T_MAP) {
      const size = MapSize(value);
      const prefix = getPrefix(constructor, tag, "Map", "(" + size + ")");
      ownEnumerable(value, keys, descs, 0);
      if (size === 0 && keys.length === 0) return prefix + "{}";
      braces0 = prefix + "{";
      entries = formatMapEntries;
    } else if (kind === T_TYPED) {
      typedLength = TypedArrayLength(value);
      nonIndexEnumerable(value, keys, descs, typedLength);
      const fallback = constructor === null ? TypedArrayTag(value) : "";
      const prefix = getPrefix(constructor, tag, fallback, "(" + typedLength + ")");
      braces0 = prefix + "[";
      braces1 = "]";
      if (typedLength === 0 && keys.length === 0) return braces0 + "]";
      extrasType = K_ARRAY_EXTRAS;
      allNumeric = typedAllNumeric;
      entries = function (ctx, value, recurseTimes, output) {
        return formatTypedArray(ctx, value, typedLength, output);
      };
    } else {
      if (kind === T_STRING) {
        nonIndexEnumerable(value, keys, descs, StringPrototypeValueOf(value).length);
      } else {
        ownEnumerable(value, keys, descs, 0);
      }
      if (kind === T_FUNCTION) {
        base = getFunctionBase(value, constructor, tag);
        if (keys.length === 0) return base;
      } else if (constructor === "Object") {
        if ((keys.length === 0 || keys[0] === "0") && ObjectHasOwn(value, "callee") &&
            ObjectHasOwn(value, SymbolIterator)) {
          braces0 = "[Arguments] {";
        } else if (tag !== "") {
          braces0 = getPrefix(constructor, tag, "Object", "") + "{";
        }
        if (keys.length === 0) return braces0 + "}";
      } else if (kind === T_REGEXP) {
        base = regExpToString(value);
        const prefix = getPrefix(constructor, tag, "RegExp", "");
        if (prefix !== "RegExp ") base = prefix + base;
        if (keys.length === 0 || recurseTimes > ctx.depth) return base;
      } else if (kind === T_DATE) {
        base = NumberIsNaN(DatePrototypeGetTime(value)) ?
          DatePrototypeToString(value) : DatePrototypeToISOString(value);
        const prefix = getPrefix(constructor, tag, "Date", "");
        if (prefix !== "Date ") base = prefix + base;
        if (keys.length === 0) return base;
      } else if (kind === T_ERROR) {
        base = formatError(ctx, value, constructor, tag, keys, descs);
        if (keys.length === 0) return base;
      } else if (kind === T_ARRAYBUFFER || kind === T_SHAREDARRAYBUFFER) {
        const isShared = kind === T_SHAREDARRAYBUFFER;
        const prefix = getPrefix(constructor, tag, isShared ? "SharedArrayBuffer" : "ArrayBuffer", "");
        const byteLength = isShared ? SharedArrayBufferByteLength(value) : ArrayBufferByteLength(value);
        braces0 = prefix + "{";
        entries = formatArrayBufferContents2;
        unshiftKey(keys, descs, "byteLength", byteLength);
      } else if (kind === T_DATAVIEW) {
        braces0 = getPrefix(constructor, tag, "DataView", "") + "{";
        unshiftKey(keys, descs, "buffer", DataViewBuffer(value));
        unshiftKey(keys, descs, "byteOffset", DataViewByteOffset(value));
        unshiftKey(keys, descs, "byteLength", DataViewByteLength(value));
      } else if (kind === T_PROMISE) {
        braces0 = getPrefix(constructor, tag, "Promise", "") + "{";
        entries = formatPromiseEntries;
      } else if (kind === T_WEAKSET || kind === T_WEAKMAP) {
        braces0 = getPrefix(constructor, tag, kind === T_WEAKSET ? "WeakSet" : "WeakMap", "") + "{";
        entries = formatWeakEntries;
      } else if (kind === T_NUMBER || kind === T_STRING || kind === T_BOOLEAN ||
          kind === T_SYMBOL || kind === T_BIGINT) {
        base = getBoxedBase(ctx, value, kind, constructor, tag);
        if (keys.length === 0) return base;
      } else {
        if (keys.length === 0) return getCtxStyle(kind, constructor, tag) + "{}";
        braces0 = getCtxStyle(kind, constructor, tag) + "{";
      }
    }

    if (recurseTimes > ctx.depth) {
      let name = StringPrototypeSlice(getCtxStyle(kind, constructor, tag), 0, -1);
      if (constructor !== null) name = "[" + name + "]";
      return name;
    }
    recurseTimes += 1;
    const seen = ctx.seen;
    push(seen, value);
    ctx.currentDepth = recurseTimes;
    let output = list();
    if (entries === formatArray) output = formatArray(ctx, value, recurseTimes, output, num);
    else if (entries !== null) output = entries(ctx, value, recurseTimes, output);
    for (let i = 0; i < keys.length; i++) {
      push(output, formatProperty(ctx, keys[i], descs[i], recurseTimes));
    }
    const circular = ctx.circular;
    for (let j = 0; j < circular.length; j++) {
      if (circular[j] === value) {
        const reference = "<ref *" + (j + 1) + ">";
        base = base === "" ? reference : reference + " " + base;
        break;
      }
    }
    seen.length = seen.length - 1;
    return reduceToSingleString(ctx, output, base, braces0, braces1, extrasType,
      recurseTimes, value, allNumeric, num);
  }

  // unshiftKey puts a synthetic key first (the values Node reads through the
  // ArrayBuffer and DataView getters; here they come from captured getters).
  function unshiftKey(keys, descs, key, value) {
    for (let i = keys.length; i > 0; i--) {
      keys[i] = keys[i - 1];
      descs[i] = descs[i - 1];
    }
    keys[0] = key;
    descs[0] = { __proto__: null, value: value, enumerable: true };
  }

  function formatArrayBufferContents2(ctx, value, recurseTimes, output) {
    return formatArrayBufferContents(value, output);
  }
  function formatPromiseEntries(ctx, value, recurseTimes, output) {
    push(output, "<unknown>");
    return output;
  }
  function formatWeakEntries(ctx, value, recurseTimes, output) {
    push(output, "<items unknown>");
    return output;
  }

  // ---- API ---------------------------------------------------------------------------------------------
  function inspect(value) {
    try {
      checkDescriptors();
      return formatValue(newContext(DEPTH), value, 0);
    } catch (e) {
      return fallbackText(value);
    }
  }

  function formatLogArgs(args) {
    const n = args.length;
    let out = "";
    for (let i = 0; i < n; i++) {
      const v = args[i];
      const t = typeof v;
      let s;
      if (t === "string") s = v;
      else if (t === "number") s = (v === 0 && 1 / v < 0) ? "-0" : "" + v;
      else if (t === "boolean") s = v ? "true" : "false";
      else if (v === undefined) s = "undefined";
      else if (v === null) s = "null";
      else s = inspect(v);
      out = i === 0 ? s : out + " " + s;
    }
    return out;
  }

  const api = { __proto__: null };
  api.formatLogArgs = formatLogArgs;
  api.inspect = inspect;
  return api;
