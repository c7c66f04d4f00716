"""C identifiers made from outside names (tensor names): valid, unique, and clear of every name the generated files,
the C standard headers they include and the compilers' predefined macros use."""

from __future__ import annotations

import re

#: Keywords of C99, C11 and C23 (users may build the generated files in any of these modes).
C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if inline int long register
    restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool _Complex
    _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local alignas alignof bool
    constexpr false nullptr static_assert thread_local true typeof typeof_unqual _BitInt _Decimal32 _Decimal64
    _Decimal128
""".split())

#: C++ keywords: <name>.h is meant to be included from C++ too (it has an extern "C" block).
CPP_KEYWORDS = frozenset("""
    and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl concept consteval constinit const_cast
    co_await co_return co_yield decltype delete dynamic_cast explicit export friend mutable namespace new noexcept not
    not_eq operator or or_eq private protected public reinterpret_cast requires static_cast template this throw try
    typeid typename using virtual wchar_t xor xor_eq
""".split())

#: Types, macros and functions of the headers the generated files include (<stdint.h>, <stddef.h>, <math.h>,
#: <string.h>) or that users commonly include beside them, plus macros gcc predefines in GNU modes (`linux`,
#: `unix`, `i386`). An object-like macro used as a parameter name would be replaced by its expansion; a type or
#: function name would be shadowed inside the function that uses it.
C_STANDARD_NAMES = frozenset("""
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t int_least8_t int_least16_t int_least32_t
    int_least64_t uint_least8_t uint_least16_t uint_least32_t uint_least64_t int_fast8_t int_fast16_t int_fast32_t
    int_fast64_t uint_fast8_t uint_fast16_t uint_fast32_t uint_fast64_t intptr_t uintptr_t intmax_t uintmax_t
    size_t ptrdiff_t wchar_t max_align_t NULL offsetof errno assert main memcpy memmove memset memcmp strlen
    INT8_MIN INT16_MIN INT32_MIN INT64_MIN INT8_MAX INT16_MAX INT32_MAX INT64_MAX UINT8_MAX UINT16_MAX UINT32_MAX
    UINT64_MAX INT8_C INT16_C INT32_C INT64_C UINT8_C UINT16_C UINT32_C UINT64_C INTMAX_C UINTMAX_C INTMAX_MIN
    INTMAX_MAX UINTMAX_MAX INTPTR_MIN INTPTR_MAX UINTPTR_MAX PTRDIFF_MIN PTRDIFF_MAX SIZE_MAX SIG_ATOMIC_MIN
    SIG_ATOMIC_MAX WCHAR_MIN WCHAR_MAX WINT_MIN WINT_MAX
    NAN INFINITY HUGE_VAL HUGE_VALF HUGE_VALL FP_NAN FP_INFINITE FP_ZERO FP_SUBNORMAL FP_NORMAL FP_FAST_FMA
    FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT math_errhandling float_t double_t
    EDOM ERANGE EILSEQ EOF FLT_EVAL_METHOD isnan isinf isfinite isnormal signbit fpclassify fmaf fabsf sqrtf
    floorf ceilf roundf truncf rintf nearbyintf fmodf frexpf ldexpf expf logf powf tanhf M_PI M_E I
    complex imaginary noreturn static_assert
    linux unix i386 i686 sun vax mips arm
""".split())

#: Names the generated function body uses besides the model-prefixed ones (see templates/model.c.j2).
TEMPLATE_LOCALS = frozenset({"arena", "arena_u8"})

#: Suffixes of the per-I/O macros in <name>.h: <NAME>_<IO>_<SUFFIX>.
IO_MACRO_SUFFIXES = ("RANK", "SHAPE", "SIZE", "SCALE", "ZERO_POINT", "ARENA_OFFSET")

#: Macros <name>.h, <name>.c and <name>_weights.[ch] define for the model besides the per-I/O ones (<NAME>_...),
#: including the hooks users define (PROFILE_*, WEIGHTS_SECTION, ARENA_SECTION). Runtime macros are
#: <NAME>_RT_*.
MODEL_MACROS = ("H", "WEIGHTS_H", "ARENA_SIZE", "ARENA_ALIGN", "ARENA_SECTION", "NUM_INPUTS", "NUM_OUTPUTS", "OK",
                "ERR_NULL", "ERR_ALIGN", "WEIGHTS_SECTION", "ALIGN16", "PROFILE_BEGIN",
                "PROFILE_END")

#: Longest identifier made from a name (C99 guarantees 63 significant characters in internal identifiers).
MAX_IDENTIFIER = 63


def sanitize(name: str) -> str:
    """A C identifier made from a tensor name: invalid characters become '_', a leading digit gets '_'."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not ident or ident[0].isdigit():
        ident = "_" + ident
    return ident


def _io_macros(prefix: str, ident: str) -> set[str]:
    """The per-I/O macro names <name>.h defines for a parameter called ident."""
    return {f"{prefix.upper()}_{ident.upper()}_{suffix}" for suffix in IO_MACRO_SUFFIXES}


def _clashes(ident: str, prefix: str) -> bool:
    """Whether ident cannot be a parameter of <prefix>_run: reserved by C, used by the templates or the runtime."""
    return (ident in C_KEYWORDS or ident in CPP_KEYWORDS or ident in C_STANDARD_NAMES or ident in TEMPLATE_LOCALS
            or ident.startswith("__") or re.match(r"_[A-Z]", ident) is not None
            or ident.startswith((f"{prefix}_", f"{prefix.upper()}_"))  # model symbols, runtime, model macros
            or ident.upper() == "RT" or ident.upper().startswith("RT_")  # per-I/O macros among <NAME>_RT_*
            or bool(_io_macros(prefix, ident) & {f"{prefix.upper()}_{m}" for m in MODEL_MACROS}))


def io_identifiers(names: list[str], prefix: str) -> dict[str, str]:
    """C parameter names for the graph inputs and outputs of model `prefix`: name → identifier.

    A sanitized name that is free is kept; one that is reserved (C keyword, standard type or macro, a name the
    generated code uses), or taken by another name, or whose upper-cased per-I/O macros another name's already use
    (`a` and `A`), gets the first free suffix `_`, `_2`, `_3`, ... . Free names are claimed before any suffix is
    given, valid C identifiers before sanitized ones, so renaming one name never renames another.
    """
    wanted = {name: sanitize(name)[:MAX_IDENTIFIER] for name in names}
    result: dict[str, str] = {}
    taken: set[str] = set()
    macros: set[str] = set()

    def claim(name: str, ident: str) -> bool:
        mine = _io_macros(prefix, ident)
        if ident in taken or mine & macros or _clashes(ident, prefix):
            return False
        result[name] = ident
        taken.add(ident)
        macros.update(mine)
        return True

    for exact in (True, False):  # names that are C identifiers already come first: `y_0` keeps it before `y:0`
        for name in names:
            if (wanted[name] == name) == exact and name not in result:
                claim(name, wanted[name])
    for name in names:
        if name in result:
            continue
        base = wanted[name][:MAX_IDENTIFIER - 5]
        if _clashes(base + "_9", prefix):
            base = "t" + base  # a suffix cannot cure a reserved or model-owned beginning (`__x`, `m_run`, `RT_x`)
        for attempt in range(1, len(names) + 2):
            if claim(name, base + ("_" if attempt == 1 else f"_{attempt}")):
                break
    return result
