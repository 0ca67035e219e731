# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""gen/manifest.json and gen/aesgen_gen.h: what the generated files are, for everyone else.

`python3 -m generator gen` writes both beside the assembly.  The manifest lists every
generated file: its mode, ISA, ABI and knobs, its functions with their C prototypes,
the CPU features it needs (with their CPUID/XCR0 bits), its LLVM-MCA regions with the
bytes each iteration processes, and the sha256 of each twin.  gen/aesgen_gen.h is the
same facts for C: the runtime's CPU feature bits and detection table, the ISA list with
each ISA's feature mask, the layout offsets of generator/layout.py (each checked with a
_Static_assert against the runtime's structs), and the prototypes (each checked against
its contract in runtime/src/asm_abi.h).

The runtime, the Makefile, the C and Python tests and perf/ read these instead of
restating them.  The manifest also remembers each file's knobs: `gen` for one ISA and
mode keeps the other files' entries (their knobs come from the existing manifest).
"""

import hashlib
import json
import os
from typing import Dict, List

from . import SPDX_LICENSE, VERSION, layout, tuning
from .errors import TemplateError, UsageError
from .features import FEATURES, mask
from .functions import parse_symbol
from .isa import ISAS
from .modes import MODES
from .uarch import UARCHES
from .model import Directive
from .render import knob_text

MANIFEST = "manifest.json"
HEADER = "aesgen_gen.h"
SCHEMA = "aesgen-manifest-1"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_entry(mode, isa, knobs, abi, output) -> dict:
    """The manifest's entry for gen/<isa>/<mode>.{S,asm}; output: render.build()'s."""
    functions, regions, current = [], [], None
    for s in output.statements:
        if isinstance(s, Directive) and s.name in ("function", "alias"):
            f = parse_symbol(s.args[0], isa.name)
            entry = {"symbol": f.symbol, "base": f.base, "contract": f.contract.typedef,
                     "prototype": f.prototype, "variant": f.variant}
            if s.name == "alias":       # a variant's function its knobs leave unchanged
                entry["same_code_as"] = current
            else:
                current = f.symbol
            functions.append(entry)
        elif isinstance(s, Directive) and s.name == "mca_begin":
            # a uarch variant's loops carry _<its name> (GCM's templates name it inside,
            # the others get it at the end, render._apart); "" is the file's own knobs.
            # The longest name that matches owns it: one variant's name may be a part
            # of another's (rectailstitched in ..._keysrows_rectailstitched_tail2_...)
            owner = max((v.name for v in output.variants
                         if s.args[0].endswith("_" + v.name)
                         or f"_{v.name}_" in s.args[0]), key=len, default="")
            regions.append({"name": s.args[0], "bytes_per_iteration": int(s.args[1], 0),
                            "variant": owner})
    return {
        "mode": mode.name, "isa": isa.name, "abi": abi.name,
        "knobs": dict(sorted(knobs.items())),
        # uarch variants (generator/tuning.json): the functions named <symbol>_<name>
        "variants": [{"name": v.name, "knobs": dict(sorted(v.knobs.items())),
                      "uarches": list(v.uarches)} for v in output.variants],
        "files": {ext: {"path": f"{isa.name}/{mode.name}.{ext}", "sha256": sha256(text)}
                  for ext, text in output.texts.items()},
        "functions": functions,
        "cpu_features": list(isa.features),      # details in the top-level cpu_features
        "feature_mask": mask(isa.features),      # their AESGEN_CPU_* bits
        "mca_regions": regions,
    }


def stride(entry: dict) -> int:
    """Bytes per main-loop iteration of a file's own functions (their regions agree; the C
    tests' stride); a uarch variant's loops may have another (its UNROLL)."""
    values = {r["bytes_per_iteration"] for r in entry["mca_regions"] if not r.get("variant")}
    if len(values) != 1:
        raise TemplateError(f"{entry['isa']}/{entry['mode']}: main loops of different "
                            f"strides {sorted(values)}")
    return values.pop()


def variant_stride(entry: dict, variant: str) -> int:
    """Bytes per main-loop iteration of one uarch variant's functions."""
    values = {r["bytes_per_iteration"] for r in entry["mca_regions"]
              if r.get("variant") == variant}
    if len(values) != 1:
        raise TemplateError(f"{entry['isa']}/{entry['mode']} variant {variant}: main loops "
                            f"of strides {sorted(values)}")
    return values.pop()


def document(entries: List[dict], header_text: str) -> dict:
    return {
        "license": f"SPDX-License-Identifier: {SPDX_LICENSE}",
        "schema": SCHEMA,
        "generator": f"aesgen {VERSION}",
        "about": "Written by `python3 -m generator gen` (make gen); do not edit.  Paths "
                 "are relative to this directory.",
        "header": {"path": HEADER, "sha256": sha256(header_text)},
        "cpu_features": {name: f.as_json() for name, f in FEATURES.items()},
        "isas": [{"name": i.name, "vector_bytes": i.vector_bytes, "lanes": i.lanes,
                  "vector_registers": i.vector_registers, "evex": i.evex,
                  "cpu_features": list(i.features), "feature_mask": mask(i.features)}
                 for i in ISAS.values()],
        "uarches": [{"name": u.name, "vendor": u.vendor, "family": u.family,
                     "models": [list(r) for r in u.models], "summary": u.summary}
                    for u in UARCHES.values()],
        "length_plans": {mode: {uarch: {"isa": isa,
                                        "classes": [_class_json(c) for c in classes],
                                        "stream_classes": [_class_json(c) for c in streams]}
                                for uarch, (isa, classes, streams) in plans.items()}
                         for mode, plans in tuning.length_plans().items()},
        "layout": layout.as_json(),
        "generated": entries,
    }


def _class_json(length_class) -> dict:
    max_len, isa, variant, min_len, at_most = length_class
    out = {"max_len": max_len, "isa": isa, "variant": variant}
    if min_len != 1:
        out["min_len"] = min_len
    if at_most is not None:
        out["last_vector_at_most"] = at_most
    return out


def manifest_text(entries: List[dict], header_text: str) -> str:
    return json.dumps(document(entries, header_text), indent=1) + "\n"


def load(directory: str) -> Dict[tuple, dict]:
    """{(isa, mode): entry} of directory/manifest.json, {} if there is none."""
    path = os.path.join(directory, MANIFEST)
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except ValueError as error:
        raise UsageError(f"{path}: not valid JSON ({error}); delete it and run a full "
                         "`make gen`") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return {}
    return {(e["isa"], e["mode"]): e for e in data["generated"]}


# ---- gen/aesgen_gen.h -------------------------------------------------------------------

def _macro(name: str, items: List[str]) -> List[str]:
    if not items:
        return [f"#define {name}"]
    lines = [f"#define {name} \\"]
    lines += [f"    {item} \\" for item in items[:-1]] + [f"    {items[-1]}"]
    return lines


def _feature_bits(names) -> str:
    return " | ".join(f"AESGEN_CPU_{FEATURES[n].c_name}" for n in names) or "0"


def _uarch_lines(entries: List[dict], isas) -> List[str]:
    """The uarch table, which variant each uarch takes in each file, and the length
    plans: generator/uarch.py and generator/tuning.json (each entry measured there).
    A vendored subset keeps only the plans and classes whose mode and ISAs it holds."""
    held = {i.name for i in isas}
    modes = {e["mode"] for e in entries}
    out = ["/* ---- Microarchitectures (generator/uarch.py) and their measured choices",
           " * (generator/tuning.json) ---- */", "",
           f"#define AESGEN_GEN_UARCH_COUNT {len(UARCHES)}",
           "/* X(name, NAME) in generator/uarch.py's order (ids from 1; 0 is DEFAULT, a CPU in",
           " * no row, and after them NONE: no uarch's choices, the files' own functions) */"]
    out += _macro("AESGEN_GEN_UARCHES(X)",
                  [f"X({u.name}, {u.name.upper()})" for u in UARCHES.values()])
    out += ["/* X(NAME, vendor, display family, first model, last model): one row per model",
            " * range; the first row that matches the CPU names its uarch */"]
    out += _macro("AESGEN_GEN_UARCH_MODELS(X)",
                  [f'X({u.name.upper()}, "{u.vendor}", {u.family:#x}, {low:#x}, {high:#x})'
                   for u in UARCHES.values() for low, high in u.models])
    out += ["/* X(isa, mode, NAME of the uarch, _variant): the uarch (DEFAULT: a CPU in no row)",
            " * takes the functions <symbol>_variant of gen/<isa>/<mode>.S (a uarch not",
            " * listed: the file's own) */"]
    for isa in (i.name for i in isas):
        out += _macro(f"AESGEN_GEN_UARCH_VARIANTS_{isa}(X)",
                      [f"X({e['isa']}, {e['mode']}, {u.upper()}, _{v['name']})"
                       for e in entries if e["isa"] == isa
                       for v in e["variants"] for u in v["uarches"]])
    out += ["/* X(isa, mode, _variant, name of the first uarch taking it, its UNROLL, bytes",
            " * per iteration of its main loops): each variant once */"]
    out += _macro("AESGEN_GEN_VARIANT_SETS(X)",
                  [f"X({e['isa']}, {e['mode']}, _{v['name']}, {v['uarches'][0]}, "
                   f"{v['knobs'].get('UNROLL', 0)}, {variant_stride(e, v['name'])})"
                   for e in entries for v in e["variants"]])
    out += ["/* Length plans: X(mode, NAME of the uarch, isa, ISA, CLASSES, STREAM_CLASSES): where",
            " * \"auto\" takes isa on that uarch, a call of min_len..max_len bytes whose last",
            " * vector of isa (period bytes) holds at most at_most bytes takes another ISA:",
            " * CLASSES(C) is C(max_len, its isa, ITS_NAME, FNS, min_len, period, at_most),",
            " * ascending max_len, the first that covers a call taking it (gcm: the records;",
            " * STREAM_CLASSES: gcm's streaming calls); FNS: TUNED (that ISA's functions for the",
            " * uarch, its variant where it has one) or OWN (the file's own functions); at_most =",
            " * period: any last vector.  AESGEN_GEN_LENGTH_CLASSES_FROM_xctr: the shortest call",
            " * any class of xctr covers (its calls look at the context's plan from there) */"]
    plans = tuning.length_plans()
    rows, shortest = [], {}
    for mode in sorted(plans):
        if mode not in modes:
            continue
        for uarch, (isa, classes, streams) in sorted(plans[mode].items()):
            if isa not in held:
                continue
            classes = [c for c in classes if c[1] in held]
            streams = [c for c in streams if c[1] in held]
            name = f"AESGEN_GEN_LENGTH_CLASSES_{mode}_{uarch}"
            which = {"uarch": "TUNED", "own": "OWN"}
            period = ISAS[isa].vector_bytes

            def items(of):
                return [f"C({n}, {i}, {i.upper()}, {which[v]}, {low}, {period}, "
                        f"{period if at_most is None else at_most})"
                        for n, i, v, low, at_most in of]
            out += _macro(f"{name}(C)", items(classes))
            out += _macro(f"{name}_STREAM(C)", items(streams))
            for c in classes:
                shortest[mode] = min(shortest.get(mode, c[3]), c[3])
            rows.append(f"X({mode}, {uarch.upper()}, {isa}, {isa.upper()}, {name}, "
                        f"{name}_STREAM)")
    out += _macro("AESGEN_GEN_LENGTH_PLANS(X)", rows)
    out += [f"#define AESGEN_GEN_LENGTH_CLASSES_FROM_{mode} {shortest[mode]}"
            for mode in ("xctr",) if mode in shortest]
    out.append("")
    return out


def header_text(entries: List[dict], isas=None, regenerate=None, modes=None) -> str:
    """gen/aesgen_gen.h of these entries.  isas: the ISAs the runtime offers (default
    all; a vendored bundle passes its subset, and its entries are that subset's files);
    modes: the modes the runtime offers (default those of the entries; a bundle's entries
    may hold a file only another mode needs, vperm_ssse3's CTR under its GCM);
    regenerate: the command the banner names."""
    isas = list(ISAS.values()) if isas is None else list(isas)
    regenerate = regenerate or "run `make gen` (python3 -m generator gen)"
    out = [f"/* SPDX-License-Identifier: {SPDX_LICENSE} */",
           "/*",
           f" * Generated by aesgen {VERSION} -- do not edit; {regenerate}.",
           " * From generator/features.py, isa.py, uarch.py, tuning.json, layout.py, functions.py and the generated "
           "files",
           " * listed in gen/manifest.json.  Included through runtime/src/internal.h (and "
           "the C tests)",
           " * after asm_abi.h, whose contracts the prototypes below are checked against.",
           " */",
           "#ifndef AESGEN_GEN_H", "#define AESGEN_GEN_H", "",
           "#include <stddef.h>", "#include <stdint.h>", '#include "asm_abi.h"', ""]

    out += ["/* ---- CPU features (generator/features.py) ---- */", "",
            "/* One bit each; the runtime sets a bit only if CPUID (or XCR0) reports it. */",
            "enum {"]
    for index, f in enumerate(FEATURES.values()):
        how = (f"CPUID.(EAX={f.cpuid[0]},ECX={f.cpuid[1]}):{f.cpuid[2].upper()}[{f.cpuid[3]}]"
               if f.cpuid else f"XCR0 & {f.xcr0:#x}")
        value = f"1u << {index},"
        out.append(f"    AESGEN_CPU_{f.c_name:<9} = {value:<9} /* {f.name}: {how} */")
    out += ["};", "",
            "/* X(bit, title, leaf, subleaf, register, bit number) */"]
    out += _macro("AESGEN_GEN_CPUID_FEATURES(X)",
                  [f'X(AESGEN_CPU_{f.c_name}, "{f.title}", {f.cpuid[0]}, {f.cpuid[1]}, '
                   f"{f.cpuid[2]}, {f.cpuid[3]})" for f in FEATURES.values() if f.cpuid])
    out += ["/* X(bit, title, XCR0 bits the OS must enable) */"]
    out += _macro("AESGEN_GEN_XCR0_FEATURES(X)",
                  [f'X(AESGEN_CPU_{f.c_name}, "{f.title}", {f.xcr0:#x})'
                   for f in FEATURES.values() if not f.cpuid])
    out += [""]

    out += ["/* ---- ISAs (generator/isa.py), in order of preference, lowest first ---- */",
            "", f"#define AESGEN_GEN_ISA_COUNT {len(isas)}",
            "/* X(name, NAME, vector bytes, evex, the feature bits it needs) */"]
    out += _macro("AESGEN_GEN_ISAS(X)",
                  [f"X({i.name}, {i.name.upper()}, {i.vector_bytes}, {int(i.evex)}, "
                   f"{_feature_bits(i.features)})" for i in isas])
    out += ["/* AESGEN_GEN_HAS_<isa>_<mode>(have, lack): `have` if gen/<isa>/<mode>.S exists",
            " * (vperm_ssse3 has fewer modes; the runtime gives it the generic code there),",
            " * AESGEN_GEN_AESNI_<isa>(have, lack): `have` if the ISA has AES-NI (its key setup),",
            " * and AESGEN_GEN_CTR_IV_<isa>(have, lack): `have` if its ctr.S has the",
            " * aesgen_ctr_crypt_iv_<isa> functions (the counter block from memory). */"]
    for i in isas:
        for m in ("ctr", "xctr", "xts", "gcm"):
            choice = "have" if m in i.modes else "lack"
            out.append(f"#define AESGEN_GEN_HAS_{i.name}_{m}(have, lack) {choice}")
        out.append(f"#define AESGEN_GEN_AESNI_{i.name}(have, lack) "
                   + ("have" if "aes" in i.features else "lack"))
        iv = any(f["base"] == "ctr_crypt_iv" for e in entries
                 if e["isa"] == i.name and e["mode"] == "ctr" for f in e["functions"])
        out.append(f"#define AESGEN_GEN_CTR_IV_{i.name}(have, lack) "
                   + ("have" if iv else "lack"))
    out += [f"#define AESGEN_GEN_HAVE_ISA_{i.name} 1" for i in isas]
    out += ["/* X(feature bit) of each ISA, in generator/isa.py's order */"]
    for i in isas:
        out += _macro(f"AESGEN_GEN_FEATURES_{i.name}(X)",
                      [f"X(AESGEN_CPU_{FEATURES[n].c_name})" for n in i.features])
    out += [""]

    out += _uarch_lines(entries, isas)

    out += ["/* ---- Layouts the assembly reads (generator/layout.py) ---- */", ""]
    for name, value in layout.constants().items():
        out.append(f"#define {name} {value}")
    out.append("")
    for struct in layout.STRUCTS:
        for field in struct.fields:
            macro = f"AESGEN_LAYOUT_{struct.prefix}_{field.member.upper()}"
            out.append(f"_Static_assert(offsetof({struct.c_type}, {field.member}) == {macro} "
                       f"&& sizeof((({struct.c_type} *)0)->{field.member}) == {field.size},")
            out.append(f'               "{struct.c_type}.{field.member}: generator/layout.py");')
    out.append("_Static_assert(AESGEN_GCM_H_POWERS == AESGEN_LAYOUT_GCM_H_POWERS &&")
    out.append("               AESGEN_GCM_H_POWERS_OFFSET == AESGEN_LAYOUT_GCM_KEY_H_POWERS,")
    out.append('               "aesgen.h\'s GCM key constants: generator/layout.py");')
    out.append("")

    out += ["/* ---- Generated functions (gen/manifest.json) ---- */", "",
            "/* The uarch variants (other knobs, see the file's header) are weak: a file",
            " * generated with other knobs may hold other variants (make explore links such",
            " * files; the runtime takes a variant only if all its functions are linked); the",
            " * C tests check every variant listed here. */",
            "#define AESGEN_GEN_VARIANT __attribute__((weak))", ""]
    checks = []
    for e in entries:
        out.append(f"/* gen/{e['files']['S']['path']}: {knob_text(e['knobs'])}; main loop "
                   f"{stride(e)} bytes per iteration */")
        for f in e["functions"]:
            weak = "AESGEN_GEN_VARIANT " if f["variant"] else ""
            out.append(f"{weak}{f['prototype']};")
            checks.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__({f['symbol']}), "
                          f"{f['contract']}),")
            checks.append(f'               "{f["symbol"]}: the {f["contract"]} contract");')
        key = f"{e['isa']}_{e['mode']}"
        out.append(f"#define AESGEN_GEN_UNROLL_{key} {e['knobs'].get('UNROLL', 0)}")
        out.append(f"#define AESGEN_GEN_STRIDE_{key} {stride(e)}")
        out.append("")
    modes = {e["mode"] for e in entries} if modes is None else set(modes)
    out += ["/* AESGEN_GEN_IF_<mode>(function): the function where the mode's files are",
            " * generated, else NULL (a vendored bundle may hold only some modes). */"]
    for name in MODES:
        out.append(f"#define AESGEN_GEN_IF_{name}(fn) {'fn' if name in modes else 'NULL'}")
    out += ["", "/* X(isa, mode, symbol) of every function above (the C ABI tests call each). */"]
    out += _macro("AESGEN_GEN_FUNCTIONS(X)",
                  [f"X({e['isa']}, {e['mode']}, {f['symbol']})"
                   for e in entries for f in e["functions"]])
    out += ["", "/* Every declaration above has its contract's type (runtime/src/asm_abi.h). */"]
    out += checks
    out += ["", "#endif /* AESGEN_GEN_H */", ""]
    return "\n".join(out)


def outputs(entries: List[dict]) -> Dict[str, str]:
    """{file name: text} of the manifest and the header for these entries."""
    header = header_text(entries)
    return {HEADER: header, MANIFEST: manifest_text(entries, header)}
