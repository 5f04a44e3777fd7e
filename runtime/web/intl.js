// Intl for English (https://tc39.es/ecma402/): the namespace, its locale and
// option handling, NumberFormat and PluralRules; DateTimeFormat, the other
// constructors and Collator are groups of their own (intl_date.js,
// intl_more.js), loaded when a program first reads them. Formats follow
// what Node's ICU prints for the locales "en", "en-US" and "en-GB";
// anything else is a RangeError that names what is supported.
// A group of coderun's web globals (runtime/web.go): evaluated on first use,
// it yields a factory of the group's globals.
(function (lib) {
  "use strict";
  const TypeError_ = TypeError, RangeError_ = RangeError, String_ = String, Number_ = Number, Object_ = Object;
  const BigInt_ = BigInt, Symbol_ = Symbol, WeakMap_ = WeakMap, Array_ = Array, Math_ = Math;
  const ObjectDefineProperty = Object.defineProperty, ObjectFreeze = Object.freeze, ObjectIs = Object.is;
  const NumberIsFinite = Number.isFinite, NumberIsNaN = Number.isNaN, ArrayIsArray = Array.isArray;
  const slots = new WeakMap_();
  // shown is a value as an error message quotes it: at most 64 characters.
  const shown = (v) => { const s = String_(v); return s.length > 64 ? s.slice(0, 64) + "…" : s; };

  // Locales. A tag is checked against BCP 47's shape and canonicalized in
  // case; a constructor takes the first of the requested locales, which
  // must be one coderun has.
  const LOCALES = ["en", "en-US", "en-GB"];
  const DEFAULT_LOCALE = "en-US";
  const TAG = /^(?:[a-z]{2,3}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[a-wyz\d](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?$/i;
  function canonicalTag(tag) {
    if (typeof tag !== "string" && (typeof tag !== "object" || tag === null)) {
      throw new TypeError_("Language ID should be string or object.");
    }
    const s = String_(tag);
    if (!TAG.test(s)) throw new RangeError_("Incorrect locale information provided");
    const sub = s.toLowerCase().split("-");
    let ext = false;
    for (let i = 1; i < sub.length; i++) {
      if (sub[i].length === 1) ext = true;
      if (ext) continue;
      if (sub[i].length === 4 && i === 1 && /^[a-z]/.test(sub[i])) sub[i] = sub[i][0].toUpperCase() + sub[i].slice(1);
      else if (sub[i].length === 2 || (sub[i].length === 3 && /^\d/.test(sub[i]))) sub[i] = sub[i].toUpperCase();
    }
    return sub.join("-");
  }
  function canonicalList(locales) {
    if (locales === undefined) return [];
    const list = typeof locales === "string" ? [locales] : Object_(locales);
    const out = [];
    const n = list.length >>> 0;
    for (let i = 0; i < n; i++) {
      if (!(i in list)) continue;
      const t = canonicalTag(list[i]);
      if (out.indexOf(t) < 0) out.push(t);
    }
    return out;
  }
  const supportedWords = '"en", "en-US" and "en-GB" (the default is "en-US")';
  function resolveLocale(what, locales) {
    const list = canonicalList(locales);
    if (list.length === 0) return DEFAULT_LOCALE;
    const t = list[0];
    if (LOCALES.indexOf(t) >= 0) return t;
    throw new RangeError_(what + ": coderun's Intl supports only the locales " + supportedWords + ", without Unicode extensions; got \"" + shown(t) + "\"");
  }
  function supportedLocalesOf(locales, options) {
    const list = canonicalList(locales);
    getOptionsObject(options);
    return list.filter((t) => LOCALES.indexOf(t) >= 0);
  }

  // Options (ECMA-402's GetOption and friends).
  function getOptionsObject(options) {
    if (options === undefined) return { __proto__: null };
    if (options === null) throw new TypeError_("Cannot convert undefined or null to object");
    return Object_(options);
  }
  function getOption(what, options, prop, values, fallback, type) {
    let v = options[prop];
    if (v === undefined) return fallback;
    if (type === "boolean") return Boolean(v);
    v = String_(v);
    if (values !== undefined && values.indexOf(v) < 0) {
      throw new RangeError_("Value " + shown(v) + " out of range for " + what + " options property " + prop +
        " (it takes " + values.map((x) => '"' + x + '"').join(", ") + ")");
    }
    return v;
  }
  function defaultNumberOption(v, min, max, fallback, prop) {
    if (v === undefined) return fallback;
    v = Number_(v);
    if (NumberIsNaN(v) || v < min || v > max) throw new RangeError_(prop + " value is out of range.");
    return Math_.floor(v);
  }
  const getNumberOption = (options, prop, min, max, fallback) => defaultNumberOption(options[prop], min, max, fallback, prop);
  // A constructor's "numberingSystem", "calendar", "localeMatcher" and
  // "hourCycle"-like options that only one value of is supported.
  function onlyValue(what, options, prop, supported) {
    const v = options[prop];
    if (v === undefined) return;
    const s = String_(v);
    if (s !== supported) {
      throw new RangeError_(what + ": coderun's Intl supports only " + prop + ' "' + supported + '"; got "' + shown(s) + '"');
    }
  }
  function localeMatcher(what, options) {
    getOption(what, options, "localeMatcher", ["lookup", "best fit"], "best fit");
  }

  // Constructors are callable without new, as ECMA-402 has them; their
  // instances keep their state in slots.
  function slot(what, o, brand) {
    const s = typeof o === "object" && o !== null ? slots.get(o) : undefined;
    if (s === undefined || s.brand !== brand) {
      throw new TypeError_("Method " + what + " called on incompatible receiver " + (typeof o === "string" ? JSON.stringify(o) : String_(o)));
    }
    return s;
  }
  function defineClass(C, brand, methods, getters) {
    const proto = C.prototype;
    for (const k of Object_.keys(methods)) {
      ObjectDefineProperty(proto, k, { value: methods[k], writable: true, configurable: true });
    }
    for (const k of Object_.keys(getters || {})) {
      ObjectDefineProperty(proto, k, { get: getters[k], configurable: true });
    }
    ObjectDefineProperty(proto, Symbol_.toStringTag, { value: brand, configurable: true });
    ObjectDefineProperty(C, "supportedLocalesOf", {
      value: { supportedLocalesOf(locales, options = undefined) { return supportedLocalesOf(locales, options); } }.supportedLocalesOf,
      writable: true, configurable: true,
    });
    ObjectDefineProperty(C, "prototype", { writable: false });
  }

  // Generated by intl_data.mjs (runtime/testdata): from here (its first
  // two lines)
  const CURRENCY_DATA = "AED|2|AED|AED|UAE dirham|UAE dirhams;AFN|0|AFN|؋|Afghan Afghani|Afghan Afghanis~AFN|؋|Afghan afghani|Afghan afghanis;ALL|0|ALL|ALL|Albanian lek|Albanian lekë;AMD|2|AMD|֏|Armenian dram|Armenian drams;ANG|2|ANG|ANG|Netherlands Antillean guilder|Netherlands Antillean guilders;AOA|2|AOA|Kz|Angolan kwanza|Angolan kwanzas;ARS|2|ARS|$|Argentine peso|Argentine pesos;AUD|2|A$|$|Australian dollar|Australian dollars;AWG|2|AWG|AWG|Aruban florin|Aruban florin;AZN|2|AZN|₼|Azerbaijani manat|Azerbaijani manats;BAM|2|BAM|KM|Bosnia-Herzegovina convertible mark|Bosnia-Herzegovina convertible marks;BBD|2|BBD|$|Barbadian dollar|Barbadian dollars;BDT|2|BDT|৳|Bangladeshi taka|Bangladeshi takas;BGN|2|BGN|BGN|Bulgarian lev|Bulgarian leva;BHD|3|BHD|BHD|Bahraini dinar|Bahraini dinars;BIF|0|BIF|BIF|Burundian franc|Burundian francs;BMD|2|BMD|$|Bermudan dollar|Bermudan dollars~BMD|$|Bermudian dollar|Bermudian dollars;BND|2|BND|$|Brunei dollar|Brunei dollars;BOB|2|BOB|Bs|Bolivian boliviano|Bolivian bolivianos;BRL|2|R$|R$|Brazilian real|Brazilian reals;BSD|2|BSD|$|Bahamian dollar|Bahamian dollars;BTN|2|BTN|BTN|Bhutanese ngultrum|Bhutanese ngultrums;BWP|2|BWP|P|Botswanan pula|Botswanan pulas;BYN|2|BYN|BYN|Belarusian ruble|Belarusian rubles~BYN|BYN|Belarusian rouble|Belarusian roubles;BZD|2|BZD|$|Belize dollar|Belize dollars;CAD|2|CA$|$|Canadian dollar|Canadian dollars;CDF|2|CDF|CDF|Congolese franc|Congolese francs;CHF|2|CHF|CHF|Swiss franc|Swiss francs;CLP|0|CLP|$|Chilean peso|Chilean pesos;CNY|2|CN¥|¥|Chinese yuan|Chinese yuan;COP|0|COP|$|Colombian peso|Colombian pesos;CRC|2|CRC|₡|Costa Rican colón|Costa Rican colóns;CUC|2|CUC|$|Cuban convertible peso|Cuban convertible pesos;CUP|2|CUP|$|Cuban peso|Cuban pesos;CVE|2|CVE|CVE|Cape Verdean escudo|Cape Verdean escudos;CZK|2|CZK|Kč|Czech koruna|Czech korunas;DJF|0|DJF|DJF|Djiboutian franc|Djiboutian francs;DKK|2|DKK|kr|Danish krone|Danish kroner;DOP|2|DOP|$|Dominican peso|Dominican pesos;DZD|2|DZD|DZD|Algerian dinar|Algerian dinars;EGP|2|EGP|E£|Egyptian pound|Egyptian pounds;ERN|2|ERN|ERN|Eritrean nakfa|Eritrean nakfas;ETB|2|ETB|ETB|Ethiopian birr|Ethiopian birrs~ETB|ETB|Ethiopian birr|Ethiopian birr;EUR|2|€|€|euro|euros;FJD|2|FJD|$|Fijian dollar|Fijian dollars;FKP|2|FKP|£|Falkland Islands pound|Falkland Islands pounds;GBP|2|£|£|British pound|British pounds;GEL|2|GEL|₾|Georgian lari|Georgian laris;GHS|2|GHS|GH₵|Ghanaian cedi|Ghanaian cedis;GIP|2|GIP|£|Gibraltar pound|Gibraltar pounds;GMD|2|GMD|GMD|Gambian dalasi|Gambian dalasis;GNF|0|GNF|FG|Guinean franc|Guinean francs;GTQ|2|GTQ|Q|Guatemalan quetzal|Guatemalan quetzals;GYD|2|GYD|$|Guyanaese dollar|Guyanaese dollars;HKD|2|HK$|$|Hong Kong dollar|Hong Kong dollars;HNL|2|HNL|L|Honduran lempira|Honduran lempiras;HRK|2|HRK|kn|Croatian kuna|Croatian kunas;HTG|2|HTG|HTG|Haitian gourde|Haitian gourdes;HUF|0|HUF|Ft|Hungarian forint|Hungarian forints;IDR|0|IDR|Rp|Indonesian rupiah|Indonesian rupiahs;ILS|2|₪|₪|Israeli new shekel|Israeli new shekels;INR|2|₹|₹|Indian rupee|Indian rupees;IQD|0|IQD|IQD|Iraqi dinar|Iraqi dinars;IRR|0|IRR|IRR|Iranian rial|Iranian rials;ISK|0|ISK|kr|Icelandic króna|Icelandic krónur;JMD|2|JMD|$|Jamaican dollar|Jamaican dollars;JOD|3|JOD|JOD|Jordanian dinar|Jordanian dinars;JPY|0|¥|¥|Japanese yen|Japanese yen~JP¥|¥|Japanese yen|Japanese yen;KES|2|KES|KES|Kenyan shilling|Kenyan shillings;KGS|2|KGS|⃀|Kyrgyz som|Kyrgyz soms;KHR|2|KHR|៛|Cambodian riel|Cambodian riels;KMF|0|KMF|CF|Comorian franc|Comorian francs;KPW|0|KPW|₩|North Korean won|North Korean won;KRW|0|₩|₩|South Korean won|South Korean won;KWD|3|KWD|KWD|Kuwaiti dinar|Kuwaiti dinars;KYD|2|KYD|$|Cayman Islands dollar|Cayman Islands dollars;KZT|2|KZT|₸|Kazakhstani tenge|Kazakhstani tenges;LAK|0|LAK|₭|Laotian kip|Laotian kips;LBP|0|LBP|L£|Lebanese pound|Lebanese pounds;LKR|2|LKR|Rs|Sri Lankan rupee|Sri Lankan rupees;LRD|2|LRD|$|Liberian dollar|Liberian dollars;LSL|2|LSL|LSL|Lesotho loti|Lesotho lotis~LSL|LSL|Lesotho loti|Lesotho maloti;LYD|3|LYD|LYD|Libyan dinar|Libyan dinars;MAD|2|MAD|MAD|Moroccan dirham|Moroccan dirhams;MDL|2|MDL|MDL|Moldovan leu|Moldovan lei;MGA|0|MGA|Ar|Malagasy ariary|Malagasy ariaries~MGA|Ar|Malagasy ariary|Malagasy ariary;MKD|2|MKD|MKD|Macedonian denar|Macedonian denari;MMK|0|MMK|K|Myanmar kyat|Myanmar kyats;MNT|2|MNT|₮|Mongolian tugrik|Mongolian tugriks;MOP|2|MOP|MOP|Macanese pataca|Macanese patacas;MRU|2|MRU|MRU|Mauritanian ouguiya|Mauritanian ouguiyas;MUR|2|MUR|Rs|Mauritian rupee|Mauritian rupees;MVR|2|MVR|MVR|Maldivian rufiyaa|Maldivian rufiyaas~MVR|MVR|Maldivian rufiyaa|Maldivian rufiyaa;MWK|2|MWK|MWK|Malawian kwacha|Malawian kwachas;MXN|2|MX$|$|Mexican peso|Mexican pesos;MYR|2|MYR|RM|Malaysian ringgit|Malaysian ringgits;MZN|2|MZN|MZN|Mozambican metical|Mozambican meticals;NAD|2|NAD|$|Namibian dollar|Namibian dollars;NGN|2|NGN|₦|Nigerian naira|Nigerian nairas;NIO|2|NIO|C$|Nicaraguan córdoba|Nicaraguan córdobas;NOK|2|NOK|kr|Norwegian krone|Norwegian kroner;NPR|2|NPR|Rs|Nepalese rupee|Nepalese rupees;NZD|2|NZ$|$|New Zealand dollar|New Zealand dollars;OMR|3|OMR|OMR|Omani rial|Omani rials;PAB|2|PAB|PAB|Panamanian balboa|Panamanian balboas;PEN|2|PEN|PEN|Peruvian sol|Peruvian soles;PGK|2|PGK|PGK|Papua New Guinean kina|Papua New Guinean kina;PHP|2|₱|₱|Philippine peso|Philippine pesos;PKR|0|PKR|Rs|Pakistani rupee|Pakistani rupees;PLN|2|PLN|zł|Polish zloty|Polish zlotys;PYG|0|PYG|₲|Paraguayan guarani|Paraguayan guaranis;QAR|2|QAR|QAR|Qatari riyal|Qatari riyals;RON|2|RON|lei|Romanian leu|Romanian lei;RSD|2|RSD|RSD|Serbian dinar|Serbian dinars;RUB|2|RUB|₽|Russian ruble|Russian rubles~RUB|₽|Russian rouble|Russian roubles;RWF|0|RWF|RF|Rwandan franc|Rwandan francs;SAR|2|SAR|SAR|Saudi riyal|Saudi riyals;SBD|2|SBD|$|Solomon Islands dollar|Solomon Islands dollars;SCR|2|SCR|SCR|Seychellois rupee|Seychellois rupees;SDG|2|SDG|SDG|Sudanese pound|Sudanese pounds;SEK|2|SEK|kr|Swedish krona|Swedish kronor;SGD|2|SGD|$|Singapore dollar|Singapore dollars;SHP|2|SHP|£|St. Helena pound|St. Helena pounds~SHP|£|St Helena pound|St Helena pounds;SLE|2|SLE|SLE|Sierra Leonean leone|Sierra Leonean leones;SLL|0|SLL|SLL|Sierra Leonean leone (1964—2022)|Sierra Leonean leones (1964—2022);SOS|0|SOS|SOS|Somali shilling|Somali shillings;SRD|2|SRD|$|Surinamese dollar|Surinamese dollars;SSP|2|SSP|£|South Sudanese pound|South Sudanese pounds;STN|2|STN|Db|São Tomé & Príncipe dobra|São Tomé & Príncipe dobras;SVC|2|SVC|SVC|Salvadoran colón|Salvadoran colones;SYP|0|SYP|£|Syrian pound|Syrian pounds;SZL|2|SZL|SZL|Swazi lilangeni|Swazi emalangeni;THB|2|THB|฿|Thai baht|Thai baht;TJS|2|TJS|TJS|Tajikistani somoni|Tajikistani somonis;TMT|2|TMT|TMT|Turkmenistani manat|Turkmenistani manat;TND|3|TND|TND|Tunisian dinar|Tunisian dinars;TOP|2|TOP|T$|Tongan paʻanga|Tongan paʻanga;TRY|2|TRY|₺|Turkish lira|Turkish Lira;TTD|2|TTD|$|Trinidad & Tobago dollar|Trinidad & Tobago dollars;TWD|2|NT$|$|New Taiwan dollar|New Taiwan dollars;TZS|2|TZS|TZS|Tanzanian shilling|Tanzanian shillings;UAH|2|UAH|₴|Ukrainian hryvnia|Ukrainian hryvnias;UGX|0|UGX|UGX|Ugandan shilling|Ugandan shillings;USD|2|$|$|US dollar|US dollars~US$|$|US dollar|US dollars;UYU|2|UYU|$|Uruguayan peso|Uruguayan pesos;UZS|2|UZS|UZS|Uzbekistani som|Uzbekistani som;VES|2|VES|VES|Venezuelan bolívar|Venezuelan bolívars;VND|0|₫|₫|Vietnamese dong|Vietnamese dong;VUV|0|VUV|VUV|Vanuatu vatu|Vanuatu vatus~VUV|VUV|Vanuatu vatu|Vanuatu vatu;WST|2|WST|WST|Samoan tala|Samoan tala;XAF|0|FCFA|FCFA|Central African CFA franc|Central African CFA francs;XCD|2|EC$|$|East Caribbean dollar|East Caribbean dollars;XCG|2|Cg.|Cg.|Caribbean guilder|Caribbean guilders;XDR|2|XDR|XDR|special drawing rights|special drawing rights;XOF|0|F CFA|F CFA|West African CFA franc|West African CFA francs;XPF|0|CFPF|CFPF|CFP franc|CFP francs;XSU|2|XSU|XSU|Sucre|Sucres;YER|0|YER|YER|Yemeni rial|Yemeni rials;ZAR|2|ZAR|R|South African rand|South African rand;ZMW|2|ZMW|ZK|Zambian kwacha|Zambian kwachas;ZWG|2|ZWG|ZWG|Zimbabwean gold|Zimbabwean gold;ZWL|2|ZWL|ZWL|Zimbabwean dollar (2009–2024)|Zimbabwean dollars (2009–2024)";
  const UNIT_DATA = "acre|{0} ac|{0} ac|{0}ac|{0}ac|{0} acre|{0} acres;bit|{0} bit|{0} bit|{0}bit|{0}bit|{0} bit|{0} bits;byte|{0} byte|{0} byte|{0}B|{0}B|{0} byte|{0} bytes;celsius|{0}°C|{0}°C|{0}°C|{0}°C|{0} degree Celsius|{0} degrees Celsius;centimeter|{0} cm|{0} cm|{0}cm|{0}cm|{0} centimeter|{0} centimeters~{0} cm|{0} cm|{0}cm|{0}cm|{0} centimetre|{0} centimetres;day|{0} day|{0} days|{0}d|{0}d|{0} day|{0} days;degree|{0} deg|{0} deg|{0}°|{0}°|{0} degree|{0} degrees;fahrenheit|{0}°F|{0}°F|{0}°|{0}°|{0} degree Fahrenheit|{0} degrees Fahrenheit~{0}°F|{0}°F|{0}°F|{0}°F|{0} degree Fahrenheit|{0} degrees Fahrenheit;fluid-ounce|{0} fl oz|{0} fl oz|{0}fl oz|{0}fl oz|{0} fluid ounce|{0} fluid ounces~{0} US fl oz|{0} US fl oz|{0}US fl oz|{0}US fl oz|{0} US fluid ounce|{0} US fluid ounces;foot|{0} ft|{0} ft|{0}′|{0}′|{0} foot|{0} feet;gallon|{0} gal|{0} gal|{0}gal|{0}gal|{0} gallon|{0} gallons~{0} US gal|{0} US gal|{0}USgal|{0}USgal|{0} US gallon|{0} US gallons;gigabit|{0} Gb|{0} Gb|{0}Gb|{0}Gb|{0} gigabit|{0} gigabits;gigabyte|{0} GB|{0} GB|{0}GB|{0}GB|{0} gigabyte|{0} gigabytes;gram|{0} g|{0} g|{0}g|{0}g|{0} gram|{0} grams;hectare|{0} ha|{0} ha|{0}ha|{0}ha|{0} hectare|{0} hectares;hour|{0} hr|{0} hr|{0}h|{0}h|{0} hour|{0} hours~{0} hr|{0} hrs|{0}h|{0}h|{0} hour|{0} hours;inch|{0} in|{0} in|{0}″|{0}″|{0} inch|{0} inches;kilobit|{0} kb|{0} kb|{0}kb|{0}kb|{0} kilobit|{0} kilobits;kilobyte|{0} kB|{0} kB|{0}kB|{0}kB|{0} kilobyte|{0} kilobytes;kilogram|{0} kg|{0} kg|{0}kg|{0}kg|{0} kilogram|{0} kilograms;kilometer|{0} km|{0} km|{0}km|{0}km|{0} kilometer|{0} kilometers~{0} km|{0} km|{0}km|{0}km|{0} kilometre|{0} kilometres;liter|{0} L|{0} L|{0}L|{0}L|{0} liter|{0} liters~{0} l|{0} l|{0}l|{0}l|{0} litre|{0} litres;megabit|{0} Mb|{0} Mb|{0}Mb|{0}Mb|{0} megabit|{0} megabits;megabyte|{0} MB|{0} MB|{0}MB|{0}MB|{0} megabyte|{0} megabytes;meter|{0} m|{0} m|{0}m|{0}m|{0} meter|{0} meters~{0} m|{0} m|{0}m|{0}m|{0} metre|{0} metres;microsecond|{0} μs|{0} μs|{0}μs|{0}μs|{0} microsecond|{0} microseconds;mile|{0} mi|{0} mi|{0}mi|{0}mi|{0} mile|{0} miles;mile-scandinavian|{0} smi|{0} smi|{0}smi|{0}smi|{0} mile-scandinavian|{0} miles-scandinavian~{0} smi|{0} smi|{0}smi|{0}smi|{0} Scandinavian mile|{0} Scandinavian miles;milliliter|{0} mL|{0} mL|{0}mL|{0}mL|{0} milliliter|{0} milliliters~{0} ml|{0} ml|{0}ml|{0}ml|{0} millilitre|{0} millilitres;millimeter|{0} mm|{0} mm|{0}mm|{0}mm|{0} millimeter|{0} millimeters~{0} mm|{0} mm|{0}mm|{0}mm|{0} millimetre|{0} millimetres;millisecond|{0} ms|{0} ms|{0}ms|{0}ms|{0} millisecond|{0} milliseconds;minute|{0} min|{0} min|{0}m|{0}m|{0} minute|{0} minutes~{0} min|{0} mins|{0}m|{0}m|{0} minute|{0} minutes;month|{0} mth|{0} mths|{0}m|{0}m|{0} month|{0} months;nanosecond|{0} ns|{0} ns|{0}ns|{0}ns|{0} nanosecond|{0} nanoseconds;ounce|{0} oz|{0} oz|{0}oz|{0}oz|{0} ounce|{0} ounces;percent|{0}%|{0}%|{0}%|{0}%|{0} percent|{0} percent~{0}%|{0}%|{0}%|{0}%|{0} per cent|{0} per cent;petabyte|{0} PB|{0} PB|{0}PB|{0}PB|{0} petabyte|{0} petabytes;pound|{0} lb|{0} lb|{0}#|{0}#|{0} pound|{0} pounds~{0} lb|{0} lb|{0}lb|{0}lb|{0} pound|{0} pounds;second|{0} sec|{0} sec|{0}s|{0}s|{0} second|{0} seconds~{0} sec|{0} secs|{0}s|{0}s|{0} second|{0} seconds;stone|{0} st|{0} st|{0}st|{0}st|{0} stone|{0} stones~{0} st|{0} st|{0}st|{0}st|{0} stone|{0} stone;terabit|{0} Tb|{0} Tb|{0}Tb|{0}Tb|{0} terabit|{0} terabits;terabyte|{0} TB|{0} TB|{0}TB|{0}TB|{0} terabyte|{0} terabytes;week|{0} wk|{0} wks|{0}w|{0}w|{0} week|{0} weeks;yard|{0} yd|{0} yd|{0}yd|{0}yd|{0} yard|{0} yards;year|{0} yr|{0} yrs|{0}y|{0}y|{0} year|{0} years;kilometer-per-hour|{0} km/h|{0} km/h|{0}km/h|{0}km/h|{0} kilometer per hour|{0} kilometers per hour~{0} km/h|{0} km/h|{0}km/h|{0}km/h|{0} kilometre per hour|{0} kilometres per hour;mile-per-hour|{0} mph|{0} mph|{0}mph|{0}mph|{0} mile per hour|{0} miles per hour;meter-per-second|{0} m/s|{0} m/s|{0}m/s|{0}m/s|{0} meter per second|{0} meters per second~{0} m/s|{0} m/s|{0}m/s|{0}m/s|{0} metre per second|{0} metres per second;liter-per-kilometer|{0} L/km|{0} L/km|{0}L/km|{0}L/km|{0} liter per kilometer|{0} liters per kilometer~{0} l/km|{0} l/km|{0}l/km|{0}l/km|{0} litre per kilometre|{0} litres per kilometre;mile-per-gallon|{0} mpg|{0} mpg|{0}mpg|{0}mpg|{0} mile per gallon|{0} miles per gallon~{0} mpg US|{0} mpg US|{0}mpgUS|{0}mpgUS|{0} mile per US gallon|{0} miles per US gallon";
  // to here.

  // Decimals: a number as its sign, its significant digits without leading
  // or trailing zeros ("" for zero) and the position of the decimal point
  // from their left (value = 0.digits × 10^pt). Numbers enter as the
  // shortest text that reads back as them, as ICU takes them.
  const dec = (neg, digits, pt) => {
    let i = 0, j = digits.length;
    while (i < j && digits.charCodeAt(i) === 48) i++;
    while (j > i && digits.charCodeAt(j - 1) === 48) j--;
    return i === j ? { neg, digits: "", pt: 0 } : { neg, digits: digits.slice(i, j), pt: pt - i };
  };
  const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;
  function decimalOf(x) {
    if (typeof x === "bigint") return x < 0n ? dec(true, String_(-x), String_(-x).length) : dec(false, String_(x), String_(x).length);
    if (typeof x === "string") {
      const s = x.trim();
      const m = DECIMAL.exec(s), n = Number_(s);
      // V8 keeps a decimal text's digits, unless it is out of double's range.
      if (m === null || (m[2] === "" && (m[3] === undefined || m[3] === "")) || !NumberIsFinite(n) || n === 0) return decimalOf(n);
      const digits = m[2] + (m[3] || "");
      return dec(m[1] === "-", digits, m[2].length + (m[4] === undefined ? 0 : Number_(m[4])));
    }
    if (!NumberIsFinite(x)) return { neg: x < 0, nan: NumberIsNaN(x), inf: !NumberIsNaN(x), digits: "", pt: 0 };
    const neg = x < 0 || ObjectIs(x, -0);
    const m = DECIMAL.exec(String_(neg ? -x : x));
    return dec(neg, m[2] + (m[3] || ""), m[2].length + (m[4] === undefined ? 0 : Number_(m[4])));
  }
  const magnitude = (d) => (d.digits === "" ? 0 : d.pt - 1);
  const scaled = (d, by) => (d.digits === "" ? d : { neg: d.neg, digits: d.digits, pt: d.pt + by });
  // roundDecimal rounds d to a multiple of inc × 10^m in one of ECMA-402's
  // rounding modes.
  function roundDecimal(d, m, inc, mode) {
    if (d.digits === "") return d;
    const shift = d.pt - d.digits.length - m;
    if (shift >= 0 && inc === 1) return d;
    let num = BigInt_(d.digits), den = BigInt_(inc);
    if (shift >= 0) num *= 10n ** BigInt_(shift); else den *= 10n ** BigInt_(-shift);
    let q = num / den;
    const r = num % den;
    if (r !== 0n && roundsUp(mode, d.neg, q, r * 2n - den)) q += 1n;
    const s = String_(q * BigInt_(inc));
    return dec(d.neg, s, s.length + m);
  }
  function roundsUp(mode, neg, q, half) {
    switch (mode) {
      case "ceil": return !neg;
      case "floor": return neg;
      case "expand": return true;
      case "trunc": return false;
    }
    if (half !== 0n) return half > 0n;
    switch (mode) {
      case "halfCeil": return !neg;
      case "halfFloor": return neg;
      case "halfTrunc": return false;
      case "halfEven": return q % 2n === 1n;
    }
    return true; // halfExpand
  }
  // rounded applies a format's digit options to d: the rounded decimal and
  // the fraction digits it shows at least.
  function rounded(o, d) {
    const e = magnitude(d);
    const bySig = () => {
      const r = roundDecimal(d, e - o.mxsd + 1, 1, o.roundingMode);
      return { r, minFrac: Math_.max(0, o.mnsd - (r.digits === "" ? 1 : r.pt)), m: e - o.mxsd + 1 };
    };
    const byFrac = () => ({ r: roundDecimal(d, -o.mxfd, o.roundingIncrement, o.roundingMode), minFrac: o.mnfd, m: -o.mxfd });
    let out;
    if (o.roundingType === "significantDigits") out = bySig();
    else if (o.roundingType === "fractionDigits") out = byFrac();
    else {
      const s = bySig(), f = byFrac();
      out = (o.roundingType === "morePrecision" ? s.m <= f.m : s.m > f.m) ? s : f;
    }
    if (o.trailingZeroDisplay === "stripIfInteger" && out.r.pt >= out.r.digits.length) out.minFrac = 0;
    return out;
  }
  // The exponent a notation shows a decimal with: scientific and
  // engineering notations' E, compact notation's thousands up to trillions.
  function notationExponent(o, e) {
    switch (o.notation) {
      case "scientific": return e;
      case "engineering": return Math_.floor(e / 3) * 3;
      case "compact": return e < 3 ? 0 : Math_.min(Math_.floor(e / 3) * 3, 12);
    }
    return 0;
  }
  // toFormatted rounds d for o's notation: the rounded mantissa, its
  // exponent, and the fraction digits it shows at least.
  function toFormatted(o, d) {
    if (o.style === "percent") d = scaled(d, 2);
    let exp = notationExponent(o, magnitude(d));
    let out = rounded(o, scaled(d, -exp));
    if (out.r.digits !== "") {
      const again = notationExponent(o, magnitude(out.r) + exp);
      if (again !== exp) {
        exp = again;
        out = rounded(o, scaled(d, -exp));
      }
    }
    out.exp = exp;
    return out;
  }
  const COMPACT_SHORT = ["", "K", "M", "B", "T"], COMPACT_GB = ["", "k", "m", "bn", "tn"];
  const COMPACT_LONG = ["", "thousand", "million", "billion", "trillion"];
  // numberParts are the parts of a rounded decimal, without its sign.
  function numberParts(o, f, parts) {
    const { r } = f;
    let int = r.pt > 0 ? r.digits.slice(0, r.pt) + "0".repeat(Math_.max(0, r.pt - r.digits.length)) : "0";
    let frac = r.pt >= 0 ? r.digits.slice(r.pt) : "0".repeat(-r.pt) + r.digits;
    if (int.length < o.mnid) int = "0".repeat(o.mnid - int.length) + int;
    if (frac.length < f.minFrac) frac += "0".repeat(f.minFrac - frac.length);
    // ICU's compact notation groups as min2 for "auto" too.
    const g = o.useGrouping === "auto" && o.notation === "compact" ? "min2" : o.useGrouping;
    if (g !== false && int.length >= (g === "min2" ? 5 : 4)) {
      let first = int.length % 3 || 3;
      parts.push({ type: "integer", value: int.slice(0, first) });
      for (; first < int.length; first += 3) {
        parts.push({ type: "group", value: "," }, { type: "integer", value: int.slice(first, first + 3) });
      }
    } else parts.push({ type: "integer", value: int });
    if (frac !== "") parts.push({ type: "decimal", value: "." }, { type: "fraction", value: frac });
    if (o.notation === "compact" && f.exp !== 0) {
      // ICU has long compact names for currencies only with their names.
      if (o.compactDisplay === "long" && (o.style !== "currency" || o.currencyDisplay === "name")) {
        parts.push({ type: "literal", value: " " }, { type: "compact", value: COMPACT_LONG[f.exp / 3] });
      } else parts.push({ type: "compact", value: (o.locale === "en-GB" ? COMPACT_GB : COMPACT_SHORT)[f.exp / 3] });
    } else if (o.notation === "scientific" || o.notation === "engineering") {
      parts.push({ type: "exponentSeparator", value: "E" });
      if (f.exp < 0) parts.push({ type: "exponentMinusSign", value: "-" });
      parts.push({ type: "exponentInteger", value: String_(Math_.abs(f.exp)) });
    }
    return { int, frac };
  }
  // englishPlural is the English plural category of a formatted number.
  function englishPlural(type, int, frac, exp) {
    if (exp !== 0) return "other";
    if (type === "ordinal") {
      if (frac.replace(/0+$/, "") !== "") return "other";
      const n10 = int.charCodeAt(int.length - 1) - 48, n100 = Number_(int.slice(-2));
      if (n10 === 1 && n100 !== 11) return "one";
      if (n10 === 2 && n100 !== 12) return "two";
      if (n10 === 3 && n100 !== 13) return "few";
      return "other";
    }
    return int.replace(/^0+/, "") === "1" && frac === "" ? "one" : "other";
  }

  // Currency and unit data (generated by intl_data.mjs from Node's ICU).
  let currencies, units;
  function currencyData(code, locale) {
    if (currencies === undefined) {
      currencies = { __proto__: null };
      for (const row of CURRENCY_DATA.split(";")) {
        const [en, gb] = row.split("~"), f = en.split("|");
        currencies[f[0]] = { digits: Number_(f[1]), en: f.slice(2), gb: gb === undefined ? f.slice(2) : gb.split("|") };
      }
    }
    const c = currencies[code];
    if (c === undefined) return { digits: 2, names: [code, code, code, code] };
    return { digits: c.digits, names: locale === "en-GB" ? c.gb : c.en };
  }
  const SIMPLE_UNITS = ("acre bit byte celsius centimeter day degree fahrenheit fluid-ounce foot gallon gigabit gigabyte gram hectare hour inch " +
    "kilobit kilobyte kilogram kilometer liter megabit megabyte meter microsecond mile mile-scandinavian milliliter millimeter millisecond " +
    "minute month nanosecond ounce percent petabyte pound second stone terabit terabyte week yard year").split(" ");
  function unitData(unit, locale) {
    if (units === undefined) {
      units = { __proto__: null };
      for (const row of UNIT_DATA.split(";")) {
        const [en, gb] = row.split("~"), f = en.split("|");
        units[f[0]] = { en: f.slice(1), gb: gb === undefined ? f.slice(1) : gb.split("|") };
      }
    }
    const u = units[unit];
    if (u === undefined) {
      throw new RangeError_("Intl.NumberFormat: coderun's Intl formats the simple units of ECMA-402 and " +
        "kilometer-per-hour, mile-per-hour, meter-per-second, liter-per-kilometer and mile-per-gallon; got '" + shown(unit) + "'");
    }
    return locale === "en-GB" ? u.gb : u.en;
  }
  const isSimpleUnit = (u) => SIMPLE_UNITS.indexOf(u) >= 0;
  const isUnit = (u) => isSimpleUnit(u) || (u.indexOf("-per-") > 0 && isSimpleUnit(u.slice(0, u.indexOf("-per-"))) && isSimpleUnit(u.slice(u.indexOf("-per-") + 5)));

  const INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000];
  const ROUNDING_MODES = ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"];
  // digitOptions is ECMA-402's SetNumberFormatDigitOptions.
  function digitOptions(what, o, options, mnfdDefault, mxfdDefault, notation) {
    o.mnid = getNumberOption(options, "minimumIntegerDigits", 1, 21, 1);
    let mnfd = options.minimumFractionDigits, mxfd = options.maximumFractionDigits;
    let mnsd = options.minimumSignificantDigits, mxsd = options.maximumSignificantDigits;
    o.roundingIncrement = getNumberOption(options, "roundingIncrement", 1, 5000, 1);
    if (INCREMENTS.indexOf(o.roundingIncrement) < 0) throw new RangeError_("roundingIncrement value is out of range.");
    o.roundingMode = getOption(what, options, "roundingMode", ROUNDING_MODES, "halfExpand");
    const priority = getOption(what, options, "roundingPriority", ["auto", "morePrecision", "lessPrecision"], "auto");
    o.trailingZeroDisplay = getOption(what, options, "trailingZeroDisplay", ["auto", "stripIfInteger"], "auto");
    if (o.roundingIncrement !== 1) mxfdDefault = mnfdDefault;
    const hasSd = mnsd !== undefined || mxsd !== undefined, hasFd = mnfd !== undefined || mxfd !== undefined;
    let needSd = true, needFd = true;
    if (priority === "auto") {
      needSd = hasSd;
      if (needSd || (!hasFd && notation === "compact")) needFd = false;
    }
    if (needSd) {
      if (hasSd) {
        o.mnsd = defaultNumberOption(mnsd, 1, 21, 1, "minimumSignificantDigits");
        o.mxsd = defaultNumberOption(mxsd, o.mnsd, 21, 21, "maximumSignificantDigits");
      } else { o.mnsd = 1; o.mxsd = 21; }
    }
    if (needFd) {
      if (hasFd) {
        mnfd = defaultNumberOption(mnfd, 0, 100, undefined, "minimumFractionDigits");
        mxfd = defaultNumberOption(mxfd, 0, 100, undefined, "maximumFractionDigits");
        if (mnfd === undefined) mnfd = Math_.min(mnfdDefault, mxfd);
        else if (mxfd === undefined) mxfd = Math_.max(mxfdDefault, mnfd);
        else if (mnfd > mxfd) throw new RangeError_("maximumFractionDigits value is out of range.");
        o.mnfd = mnfd; o.mxfd = mxfd;
      } else { o.mnfd = mnfdDefault; o.mxfd = mxfdDefault; }
    }
    if (!needSd && !needFd) {
      o.mnfd = 0; o.mxfd = 0; o.mnsd = 1; o.mxsd = 2;
      o.roundingType = "morePrecision"; o.roundingPriority = "morePrecision";
    } else if (priority === "auto") {
      o.roundingType = needSd ? "significantDigits" : "fractionDigits"; o.roundingPriority = "auto";
    } else { o.roundingType = priority; o.roundingPriority = priority; }
    if (o.roundingIncrement !== 1) {
      if (o.roundingType !== "fractionDigits") throw new TypeError_("roundingIncrement requires fraction digits rounding: set neither significant digits nor roundingPriority");
      if (o.mxfd !== o.mnfd) throw new RangeError_("maximumFractionDigits and minimumFractionDigits must be equal with a roundingIncrement");
    }
  }

  function NumberFormat(locales = undefined, options = undefined) {
    if (new.target === undefined) return new NumberFormat(locales, options);
    const what = "Intl.NumberFormat", o = { brand: what, locale: resolveLocale(what, locales) };
    options = getOptionsObject(options);
    initNumberFormat(what, o, options);
    slots.set(this, o);
  }
  function initNumberFormat(what, o, options) {
    localeMatcher(what, options);
    onlyValue(what, options, "numberingSystem", "latn");
    o.style = getOption(what, options, "style", ["decimal", "percent", "currency", "unit"], "decimal");
    let currency = getOption(what, options, "currency", undefined, undefined);
    if (currency !== undefined && !/^[A-Za-z]{3}$/.test(currency)) throw new RangeError_("Invalid currency code : " + shown(currency));
    const currencyDisplay = getOption(what, options, "currencyDisplay", ["code", "symbol", "narrowSymbol", "name"], "symbol");
    const currencySign = getOption(what, options, "currencySign", ["standard", "accounting"], "standard");
    const unit = getOption(what, options, "unit", undefined, undefined);
    if (unit !== undefined && !isUnit(unit)) throw new RangeError_("Invalid unit argument for Intl.NumberFormat() '" + shown(unit) + "'");
    const unitDisplay = getOption(what, options, "unitDisplay", ["short", "narrow", "long"], "short");
    if (o.style === "currency") {
      if (currency === undefined) throw new TypeError_("Currency code is required with currency style.");
      o.currency = currency.toUpperCase(); o.currencyDisplay = currencyDisplay; o.currencySign = currencySign;
    }
    if (o.style === "unit") {
      if (unit === undefined) throw new TypeError_("Unit is required with unit style.");
      o.unit = unit; o.unitDisplay = unitDisplay;
      o.unitPatterns = unitData(unit, o.locale);
    }
    o.notation = getOption(what, options, "notation", ["standard", "scientific", "engineering", "compact"], "standard");
    // V8 takes the currency's digits in every notation.
    let mnfdDefault = 0, mxfdDefault = o.style === "percent" ? 0 : 3;
    if (o.style === "currency") {
      o.currencyInfo = currencyData(o.currency, o.locale);
      mnfdDefault = mxfdDefault = o.currencyInfo.digits;
    }
    digitOptions(what, o, options, mnfdDefault, mxfdDefault, o.notation);
    o.compactDisplay = getOption(what, options, "compactDisplay", ["short", "long"], "short");
    o.useGrouping = useGrouping(what, options, o.notation === "compact" ? "min2" : "auto");
    o.signDisplay = getOption(what, options, "signDisplay", ["auto", "never", "always", "exceptZero", "negative"], "auto");
  }
  function useGrouping(what, options, fallback) {
    const v = options.useGrouping;
    if (v === undefined) return fallback;
    if (v === true) return "always";
    if (!v) return false;
    const s = String_(v);
    if (s === "true" || s === "false") return fallback;
    if (s !== "min2" && s !== "auto" && s !== "always") throw new RangeError_("Value " + shown(s) + " out of range for " + what + " options property useGrouping");
    return s;
  }

  // formatParts formats x (a Number, BigInt or decimal string) as o says,
  // in parts (formatToParts).
  function formatParts(o, x) {
    const d = decimalOf(typeof x === "bigint" || typeof x === "string" ? x : Number_(x));
    const num = [];
    let plural = "other", zero = false, exp = 0;
    if (d.nan || d.inf) num.push(d.nan ? { type: "nan", value: "NaN" } : { type: "infinity", value: "∞" });
    else {
      const f = toFormatted(o, d), s = numberParts(o, f, num);
      plural = englishPlural("cardinal", s.int, s.frac, f.exp);
      zero = f.r.digits === "";
      exp = f.exp;
    }
    const neg = d.neg && !d.nan;
    let sign = "";
    switch (o.signDisplay) {
      case "auto": sign = neg ? "-" : ""; break;
      case "always": sign = neg ? "-" : "+"; break;
      case "exceptZero": sign = zero || d.nan ? "" : neg ? "-" : "+"; break;
      case "negative": sign = neg && !zero ? "-" : ""; break;
    }
    const parts = [];
    const signed = () => {
      if (sign !== "") parts.push({ type: sign === "-" ? "minusSign" : "plusSign", value: sign });
      for (let i = 0; i < num.length; i++) parts.push(num[i]);
    };
    if (o.style === "currency") {
      const names = o.currencyInfo.names;
      if (o.currencyDisplay === "name") {
        signed();
        parts.push({ type: "literal", value: " " }, { type: "currency", value: names[plural === "one" ? 2 : 3] });
        return parts;
      }
      const symbol = o.currencyDisplay === "code" ? o.currency : names[o.currencyDisplay === "symbol" ? 0 : 1];
      // ICU's compact patterns have no accounting form.
      const paren = o.currencySign === "accounting" && sign === "-" && (o.notation !== "compact" || exp === 0);
      if (paren) { parts.push({ type: "literal", value: "(" }); sign = ""; }
      if (sign !== "") parts.push({ type: sign === "-" ? "minusSign" : "plusSign", value: sign });
      parts.push({ type: "currency", value: symbol });
      if (/\p{L}$/u.test(symbol) && !d.nan && !d.inf) parts.push({ type: "literal", value: "\u00a0" });
      for (let i = 0; i < num.length; i++) parts.push(num[i]);
      if (paren) parts.push({ type: "literal", value: ")" });
      return parts;
    }
    if (o.style === "unit") {
      const p = o.unitPatterns[(o.unitDisplay === "short" ? 0 : o.unitDisplay === "narrow" ? 2 : 4) + (plural === "one" ? 0 : 1)];
      const at = p.indexOf("{0}");
      unitText(parts, p.slice(0, at));
      signed();
      unitText(parts, p.slice(at + 3));
      return parts;
    }
    signed();
    if (o.style === "percent") parts.push({ type: o.notation === "compact" ? "unit" : "percentSign", value: "%" });
    return parts;
  }
  // unitText adds the text around a unit pattern's number: its spaces are
  // literals, the rest the unit.
  function unitText(parts, text) {
    const m = /^(\s*)(.*?)(\s*)$/su.exec(text);
    if (m[1] !== "") parts.push({ type: "literal", value: m[1] });
    if (m[2] !== "") parts.push({ type: "unit", value: m[2] });
    if (m[3] !== "") parts.push({ type: "literal", value: m[3] });
  }
  const joinParts = (parts) => {
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i].value;
    return s;
  };
  function digitsResolved(o, r) {
    r.minimumIntegerDigits = o.mnid;
    if (o.roundingType !== "fractionDigits") { r.minimumSignificantDigits = o.mnsd; r.maximumSignificantDigits = o.mxsd; }
    if (o.roundingType !== "significantDigits") { r.minimumFractionDigits = o.mnfd; r.maximumFractionDigits = o.mxfd; }
    return r;
  }

  // Ranges, as ICU formats them: a number's parts are its digits, its
  // exponent (inner), its sign, symbol, percent sign and compact name
  // (middle), and a unit's or currency's name (outer). Two ends that print
  // alike are "~" and one of them; the outer parts, when alike, print once,
  // and then the middle ones too, when alike and longer than one code
  // point; the en dash is spaced when the first end keeps an inner or
  // middle part, or outer one, of its own.
  const NUMBER_PART = { __proto__: null, integer: 1, group: 1, decimal: 1, fraction: 1, nan: 1, infinity: 1 };
  const INNER_PART = { __proto__: null, exponentSeparator: 1, exponentMinusSign: 1, exponentInteger: 1 };
  function rangeSplit(o, parts) {
    const outerFrom = (o.style === "unit" && !(o.unit === "percent" && o.unitDisplay !== "long")) || (o.style === "currency" && o.currencyDisplay === "name") ||
      (o.style === "percent" && o.notation === "compact");
    let last = parts.length;
    const outer = [];
    if (outerFrom) while (last > 0 && !NUMBER_PART[parts[last - 1].type] && !INNER_PART[parts[last - 1].type] && parts[last - 1].type !== "compact" && parts[last - 1].type !== "percentSign") outer.unshift(parts[--last]);
    const before = [], core = [], after = [];
    for (let i = 0; i < last; i++) {
      const p = parts[i];
      // (the space after a currency's code is the number's, in ICU)
      if (NUMBER_PART[p.type] || INNER_PART[p.type] || p.value === "\u00a0") core.push(p);
      else (core.length === 0 ? before : after).push(p);
    }
    return { before, core, after, outer, inner: core.some((p) => INNER_PART[p.type]) };
  }
  function rangeParts(what, o, x, y) {
    for (const [name, v] of [["start", x], ["end", y]]) {
      if (v === undefined) throw new TypeError_("Invalid " + name + " : undefined");
      if (typeof v === "number" && NumberIsNaN(v)) throw new RangeError_("Invalid " + name + " : NaN");
    }
    const a = formatParts(o, x), b = formatParts(o, y);
    const tag = (parts, source) => parts.map((p) => ({ type: p.type, value: p.value, source }));
    const neg = (v) => decimalOf(typeof v === "bigint" || typeof v === "string" ? v : Number_(v)).neg;
    if (joinParts(a) === joinParts(b) && neg(x) === neg(y)) {
      if (a[0].value === "(") return tag(a, "shared");
      return [{ type: "approximatelySign", value: "~", source: "shared" }].concat(tag(a, "shared"));
    }
    const s = rangeSplit(o, a), e = rangeSplit(o, b);
    const text = (ps) => joinParts(ps);
    const outerAlike = s.outer.map((p) => p.type).join() === e.outer.map((p) => p.type).join();
    const middle = (r) => text(r.before) + "\u0000" + text(r.after);
    const middleAlike = outerAlike && middle(s) === middle(e) && [...middle(s)].length - 1 > 1;
    const spaced = (!middleAlike && s.before.length + s.after.length > 0) || s.inner || (!outerAlike && s.outer.length > 0);
    const sep = [{ type: "literal", value: spaced ? " – " : "–", source: "shared" }];
    const outer = outerAlike ? tag(e.outer, "shared") : [];
    let out;
    if (middleAlike) {
      const ec = e.core.length > 0 && e.core[0].value === "\u00a0" ? e.core.slice(1) : e.core;
      const st = tag(s.core, "startRange"), en = tag(ec, "endRange");
      if (ec !== e.core) {
        // V8 (11.3) reports the ends one character short after a shared
        // currency code: their last parts shared, an unspaced dash the end's.
        st[st.length - 1].source = "shared";
        en[en.length - 1].source = "shared";
        if (!spaced) sep[0].source = "endRange";
      }
      out = tag(s.before, "shared").concat(st, sep, en, tag(s.after, "shared"), outer);
    } else if (outerAlike) {
      out = tag(s.before.concat(s.core, s.after), "startRange").concat(sep, tag(e.before.concat(e.core, e.after), "endRange"), outer);
    } else out = tag(a, "startRange").concat(sep, tag(b, "endRange"));
    // Literals next to each other are one, shared when they came from
    // different ends, as V8 reports them.
    const merged = [];
    for (const p of out) {
      const q = merged[merged.length - 1];
      if (q !== undefined && q.type === "literal" && p.type === "literal") {
        q.value += p.value;
        if (q.source !== p.source) q.source = "shared";
      } else merged.push(p);
    }
    return merged;
  }

  defineClass(NumberFormat, "Intl.NumberFormat", {
    formatToParts(value) { return formatParts(slot("Intl.NumberFormat.prototype.formatToParts", this, "Intl.NumberFormat"), value); },
    formatRange(start, end) {
      const what = "Intl.NumberFormat.prototype.formatRange";
      return joinParts(rangeParts(what, slot(what, this, "Intl.NumberFormat"), start, end));
    },
    formatRangeToParts(start, end) {
      const what = "Intl.NumberFormat.prototype.formatRangeToParts";
      return rangeParts(what, slot(what, this, "Intl.NumberFormat"), start, end);
    },
    resolvedOptions() {
      const o = slot("Intl.NumberFormat.prototype.resolvedOptions", this, "Intl.NumberFormat");
      const r = { locale: o.locale, numberingSystem: "latn", style: o.style };
      // V8 reads its resolved options back from ICU's skeleton, which has
      // no accounting with signDisplay "never" and no rounding priority
      // with trailingZeroDisplay "stripIfInteger".
      if (o.style === "currency") {
        r.currency = o.currency; r.currencyDisplay = o.currencyDisplay;
        r.currencySign = o.signDisplay === "never" ? "standard" : o.currencySign;
      }
      if (o.style === "unit") { r.unit = o.unit; r.unitDisplay = o.unitDisplay; }
      digitsResolved(o, r);
      r.useGrouping = o.useGrouping; r.notation = o.notation;
      if (o.notation === "compact") r.compactDisplay = o.compactDisplay;
      r.signDisplay = o.signDisplay; r.roundingMode = o.roundingMode; r.roundingIncrement = o.roundingIncrement;
      r.trailingZeroDisplay = o.trailingZeroDisplay;
      r.roundingPriority = o.trailingZeroDisplay === "stripIfInteger" ? "auto" : o.roundingPriority;
      return r;
    },
  }, {
    format() {
      const o = slot("get Intl.NumberFormat.prototype.format", this, "Intl.NumberFormat");
      if (o.bound === undefined) o.bound = (value) => joinParts(formatParts(o, value));
      return o.bound;
    },
  });

  function PluralRules(locales = undefined, options = undefined) {
    if (new.target === undefined) throw new TypeError_("Constructor Intl.PluralRules requires 'new'");
    // ICU's plural rules are the language's: V8 resolves a requested
    // locale to "en", and keeps the default.
    const what = "Intl.PluralRules", o = { brand: what, locale: resolveLocale(what, locales) };
    if (canonicalList(locales).length > 0) o.locale = "en";
    options = getOptionsObject(options);
    localeMatcher(what, options);
    o.type = getOption(what, options, "type", ["cardinal", "ordinal"], "cardinal");
    digitOptions(what, o, options, 0, 3, "standard");
    o.style = "decimal"; o.notation = "standard"; o.useGrouping = false;
    slots.set(this, o);
  }
  defineClass(PluralRules, "Intl.PluralRules", {
    select(n) {
      const o = slot("Intl.PluralRules.prototype.select", this, "Intl.PluralRules");
      const d = decimalOf(Number_(n));
      if (d.nan || d.inf) return "other";
      const f = toFormatted(o, d), s = numberParts(o, f, []);
      return englishPlural(o.type, s.int, s.frac, 0);
    },
    resolvedOptions() {
      const o = slot("Intl.PluralRules.prototype.resolvedOptions", this, "Intl.PluralRules");
      const r = digitsResolved(o, { locale: o.locale, type: o.type });
      r.pluralCategories = o.type === "ordinal" ? ["few", "one", "two", "other"] : ["one", "other"];
      return r;
    },
  });

  // The constructors of the other groups, loaded when first read.
  const core = ObjectFreeze({
    __proto__: null, shown, slots, slot, defineClass, resolveLocale, getOptionsObject, getOption, getNumberOption, onlyValue, localeMatcher,
    NumberFormat, formatParts, joinParts, englishPlural, decimalOf, toFormatted, numberParts,
  });
  const Intl = {};
  ObjectDefineProperty(Intl, Symbol_.toStringTag, { value: "Intl", configurable: true });
  const define = (name, value) => ObjectDefineProperty(Intl, name, { value, writable: true, configurable: true });
  define("getCanonicalLocales", { getCanonicalLocales(locales) { return canonicalList(locales); } }.getCanonicalLocales);
  // supportedValuesOf lists what coderun supports, which is less than
  // Node's ICU has: one calendar, no collation but the default, one
  // numbering system.
  define("supportedValuesOf", { supportedValuesOf(key) {
    switch (String_(key)) {
      case "calendar": return ["gregory"];
      case "collation": return [];
      case "currency": currencyData("USD", "en"); return Object_.keys(currencies).sort();
      case "numberingSystem": return ["latn"];
      case "timeZone": return group(lib.INTL_DATE).timeZones();
      case "unit": return SIMPLE_UNITS.slice();
    }
    throw new RangeError_("Invalid key : " + String_(key) + " (Intl.supportedValuesOf takes \"calendar\", \"collation\", \"currency\", \"numberingSystem\", \"timeZone\" and \"unit\")");
  } }.supportedValuesOf);
  define("NumberFormat", NumberFormat);
  define("PluralRules", PluralRules);
  const groups = { __proto__: null };
  const group = (g) => groups[g] || (groups[g] = lib.web(g).make(core));
  for (const [name, g] of [["DateTimeFormat", lib.INTL_DATE], ["RelativeTimeFormat", lib.INTL_MORE], ["ListFormat", lib.INTL_MORE], ["Collator", lib.INTL_MORE]]) {
    ObjectDefineProperty(Intl, name, {
      get() { const v = group(g)[name]; define(name, v); return v; },
      set(v) { define(name, v); },
      configurable: true,
    });
  }

  // Number.prototype.toLocaleString and BigInt.prototype.toLocaleString
  // (the prelude's wrappers call these), with the default format kept.
  const numberValueOf = Number.prototype.valueOf, bigintValueOf = BigInt.prototype.valueOf, ReflectApply = Reflect.apply;
  let defaultFormat;
  function toLocale(x, locales, options) {
    if (locales === undefined && options === undefined) {
      if (defaultFormat === undefined) defaultFormat = slots.get(new NumberFormat());
      return joinParts(formatParts(defaultFormat, x));
    }
    return joinParts(formatParts(slots.get(new NumberFormat(locales, options)), x));
  }
  return {
    __proto__: null, Intl,
    numberToLocaleString(self, locales, options) { return toLocale(ReflectApply(numberValueOf, self, []), locales, options); },
    bigintToLocaleString(self, locales, options) { return toLocale(ReflectApply(bigintValueOf, self, []), locales, options); },
    dateToLocaleString(self, locales, options) { return group(lib.INTL_DATE).toLocale("any", "all", self, locales, options); },
    dateToLocaleDateString(self, locales, options) { return group(lib.INTL_DATE).toLocale("date", "date", self, locales, options); },
    dateToLocaleTimeString(self, locales, options) { return group(lib.INTL_DATE).toLocale("time", "time", self, locales, options); },
    localeCompare(self, that, locales, options) { return group(lib.INTL_MORE).localeCompare(self, that, locales, options); },
  };
})
