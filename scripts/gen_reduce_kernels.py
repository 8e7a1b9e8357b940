#!/usr/bin/env python3
"""Generate arbor's reduction kernels (src/runtime/dtype_kernels.h declares what this emits).

One loop per defined (datatype, op) pair, written out in full so that gcc -O2/-O3 can
vectorize it (restrict pointers, no calls, no branches in the arithmetic ops), plus the
dispatch table arb_reduce_kernels[dtype][op] that is NULL where the op is undefined: that
table is the only statement of which pairs are defined (arb_op_check reads it).

Usage: gen_reduce_kernels.py OUTPUT.c      (python3, standard library only)
"""
import sys

# (enum suffix, name, C type, class). Order must follow arbor_dtype_t in include/arbor.h.
# Classes: sint, uint (integers), real, cplx (C99 _Complex), pair (struct {v; int i;}).
# For integers the 4th field is the unsigned type the arithmetic runs in (see ARITH below).
TYPES = [
    ("BYTE", "byte", "unsigned char", "uint"),
    ("CHAR", "char", "char", "char"),
    ("UCHAR", "uchar", "unsigned char", "uint"),
    ("SHORT", "short", "short", "sint"),
    ("USHORT", "ushort", "unsigned short", "uint"),
    ("INT", "int", "int", "sint"),
    ("UINT", "uint", "unsigned int", "uint"),
    ("LONG", "long", "long", "sint"),
    ("ULONG", "ulong", "unsigned long", "uint"),
    ("LONGLONG", "longlong", "long long", "sint"),
    ("ULONGLONG", "ulonglong", "unsigned long long", "uint"),
    ("INT8", "int8", "int8_t", "sint"),
    ("UINT8", "uint8", "uint8_t", "uint"),
    ("INT16", "int16", "int16_t", "sint"),
    ("UINT16", "uint16", "uint16_t", "uint"),
    ("INT32", "int32", "int32_t", "sint"),
    ("UINT32", "uint32", "uint32_t", "uint"),
    ("INT64", "int64", "int64_t", "sint"),
    ("UINT64", "uint64", "uint64_t", "uint"),
    ("FLOAT", "float", "float", "real"),
    ("DOUBLE", "double", "double", "real"),
    ("LONGDOUBLE", "longdouble", "long double", "real"),
    ("CPLX", "cplx", "float", "cplx"),
    ("DBLCPLX", "dblcplx", "double", "cplx"),
    ("LONGDBLCPLX", "longdblcplx", "long double", "cplx"),
    ("FLOAT_INT", "float_int", "float", "pair"),
    ("DOUBLE_INT", "double_int", "double", "pair"),
    ("LONG_INT", "long_int", "long", "pair"),
    ("2INT", "2int", "int", "pair"),
    ("SHORT_INT", "short_int", "short", "pair"),
    ("LONG_DOUBLE_INT", "long_double_int", "long double", "pair"),
]

# Order must follow the op enum in include/arbor.h.
OPS = ["SUM", "PROD", "BAND", "BOR", "BXOR", "LAND", "LOR", "MIN", "MAX", "MINLOC", "MAXLOC"]

INTEGER = {"sint", "uint", "char"}

# Which classes each op is defined on. UPC Collectives 2.0 / MPI rules, as arbor.h states
# them; MIN/MAX on pairs has no agreed meaning (MPI rejects it), so it stays undefined.
DEFINED = {
    "SUM": INTEGER | {"real", "cplx"},
    "PROD": INTEGER | {"real", "cplx"},
    "BAND": INTEGER,
    "BOR": INTEGER,
    "BXOR": INTEGER,
    "LAND": INTEGER | {"real", "cplx"},
    "LOR": INTEGER | {"real", "cplx"},
    "MIN": INTEGER | {"real"},
    "MAX": INTEGER | {"real"},
    "MINLOC": {"pair"},
    "MAXLOC": {"pair"},
}


def wide_unsigned(ctype):
    """The unsigned type integer SUM/PROD run in. Signed overflow is undefined behaviour and
    types narrower than int promote to (signed) int, where even unsigned short * unsigned
    short can overflow; unsigned arithmetic wraps, and the conversion back truncates (gcc
    documents modulo conversion), so a reduction never has UB whatever the user's data."""
    narrow = {"char", "unsigned char", "short", "unsigned short", "int8_t", "uint8_t",
              "int16_t", "uint16_t", "int", "unsigned int"}
    if ctype in narrow:
        return "unsigned int"
    if ctype in ("long", "unsigned long"):
        return "unsigned long"
    if ctype in ("long long", "unsigned long long"):
        return "unsigned long long"
    if ctype in ("int32_t", "uint32_t"):
        return "uint32_t"
    if ctype in ("int64_t", "uint64_t"):
        return "uint64_t"
    raise ValueError(ctype)


def elem_type(name, ctype, cls):
    if cls == "cplx":
        return ctype + " _Complex"
    if cls == "pair":
        return "arb_pair_%s_t" % name
    return ctype


def body(op, ctype, cls):
    """The loop body, with o = inout and x = in (both T *, restrict): o[k] = o[k] op x[k]."""
    if cls == "pair":
        # MPI MINLOC/MAXLOC: the better value wins; on a tie the smaller index. Ternaries
        # only, so the choice is a select, not a jump.
        cmp = "<" if op == "MINLOC" else ">"
        return ("%s a = o[k].v, b = x[k].v;\n"
                "        int ia = o[k].i, ib = x[k].i, lo = ia < ib ? ia : ib;\n"
                "        o[k].i = b %s a ? ib : (a %s b ? ia : lo);\n"
                "        o[k].v = b %s a ? b : a;") % (ctype, cmp, cmp, cmp)
    if cls == "cplx" and op == "PROD":
        # On the (re, im) array (C11 6.2.5p13 makes T _Complex an array T[2]): the textbook
        # product. The default C complex multiply calls __mul?c3 for Annex G inf/nan recovery
        # on every element, which is slow and never vectorizes; MPI libraries do the same.
        return ("%s ar = o[2 * k], ai = o[2 * k + 1], br = x[2 * k], bi = x[2 * k + 1];\n"
                "        o[2 * k] = ar * br - ai * bi;\n"
                "        o[2 * k + 1] = ar * bi + ai * br;") % ctype
    if cls in INTEGER and op in ("SUM", "PROD"):
        u = wide_unsigned(ctype)
        sym = "+" if op == "SUM" else "*"
        return "o[k] = (%s)((%s)o[k] %s (%s)x[k]);" % (ctype, u, sym, u)
    if op in ("SUM", "PROD", "BAND", "BOR", "BXOR"):
        sym = {"SUM": "+", "PROD": "*", "BAND": "&", "BOR": "|", "BXOR": "^"}[op]
        return "o[k] = o[k] %s x[k];" % sym
    t = elem_type(None, ctype, cls)
    if op in ("LAND", "LOR"):
        # & / | on the 0/1 comparisons: same value as && / || without a branch.
        sym = "&" if op == "LAND" else "|"
        return "o[k] = (%s)((o[k] != 0) %s (x[k] != 0));" % (t, sym)
    if op in ("MIN", "MAX"):
        # Keep o unless x is strictly better: the form gcc maps to minps/maxps (and integer
        # min/max) without -ffast-math.
        cmp = "<" if op == "MIN" else ">"
        return "o[k] = x[k] %s o[k] ? x[k] : o[k];" % cmp
    raise ValueError(op)


def kernel(name, ctype, cls, op):
    fn = "k_%s_%s" % (name, op.lower())
    # The complex product works on the (re, im) array, so its pointers are to the real type.
    t = ctype if (cls == "cplx" and op == "PROD") else elem_type(name, ctype, cls)
    return ("static void %s(void *restrict inout, const void *restrict in, size_t n)\n"
            "{\n"
            "    %s *restrict o = inout;\n"
            "    const %s *restrict x = in;\n"
            "    for (size_t k = 0; k < n; k++) {\n"
            "        %s\n"
            "    }\n"
            "}\n" % (fn, t, t, body(op, ctype, cls))), fn


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_reduce_kernels.py OUTPUT.c")
    out = ["/* Generated by scripts/gen_reduce_kernels.py: do not edit. */",
           '#include "runtime/dtype_kernels.h"', "",
           "#include <stdint.h>", "",
           "/* Tables below are indexed by these enums: a new type or op must come here too. */",
           "_Static_assert(ARBOR_DTYPE_COUNT == %d, \"update scripts/gen_reduce_kernels.py\");"
           % len(TYPES),
           "_Static_assert(ARBOR_OP_PREDEFINED == %d, \"update scripts/gen_reduce_kernels.py\");"
           % len(OPS), "",
           "/* The pair types of arbor.h: natural C layout and padding. */"]
    for enum, name, ctype, cls in TYPES:
        if cls == "pair":
            out.append("typedef struct {\n    %s v;\n    int i;\n} arb_pair_%s_t;" % (ctype, name))
    out.append("")
    table = {}
    for enum, name, ctype, cls in TYPES:
        for op in OPS:
            if cls in DEFINED[op]:
                src, fn = kernel(name, ctype, cls, op)
                out.append(src)
                table[(enum, op)] = fn
    out.append("const arb_dtype_info_t arb_dtype_info[ARBOR_DTYPE_COUNT] = {")
    for enum, name, ctype, cls in TYPES:
        out.append('    [ARBOR_%s] = {"%s", sizeof(%s)},'
                   % (enum, name, elem_type(name, ctype, cls)))
    out.append("};\n")
    out.append("const arb_reduce_kernel_fn_t "
               "arb_reduce_kernels[ARBOR_DTYPE_COUNT][ARBOR_OP_PREDEFINED] = {")
    for enum, name, ctype, cls in TYPES:
        out.append("    [ARBOR_%s] = {" % enum)
        for op in OPS:
            if (enum, op) in table:
                out.append("        [ARBOR_%s] = %s," % (op, table[(enum, op)]))
        out.append("    },")
    out.append("};")
    text = "\n".join(out) + "\n"
    with open(sys.argv[1], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
