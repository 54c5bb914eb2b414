# Reads engine/ir/Ops.def and writes OpFamilies.gen.h: one macro,
#   DFC_FAMILY_STRUCTS(Suffix, Member)
# that declares `struct <Family><Suffix> { Member(Op) ... };` for every family
# in the op table, with one Member per op of that family, in table order. The
# shape rules, reference, kernels, gradients and costs declare their per-family
# structs with it, so a new op is declared once, in Ops.def.
# Usage: cmake -DOPS_DEF=.../Ops.def -DOUT=.../OpFamilies.gen.h -P GenerateOpFamilies.cmake
cmake_minimum_required(VERSION 3.21)  # file(COPY_FILE ... ONLY_IF_DIFFERENT)
# One list element per line: ';' and brackets (CMake list syntax) are taken out first.
file(READ "${OPS_DEF}" content)
string(REGEX REPLACE "[][;\\]" "_" content "${content}")
string(REPLACE "\n" ";" lines "${content}")
list(FILTER lines INCLUDE REGEX "^DFC_OP\\(")
set(families "")
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^DFC_OP\\(([A-Za-z0-9_]+), *\"[^\"]*\", *-?[0-9]+, *-?[0-9]+, *([A-Za-z]+),")
    message(FATAL_ERROR "${OPS_DEF}: cannot read the op line: ${line}")
  endif()
  set(op "${CMAKE_MATCH_1}")
  set(family "${CMAKE_MATCH_2}")
  if(NOT family IN_LIST families)
    list(APPEND families "${family}")
    set(members_${family} "")
  endif()
  string(APPEND members_${family} " Member(${op})")
endforeach()
if(NOT families)
  message(FATAL_ERROR "${OPS_DEF}: no DFC_OP lines")
endif()

set(text "// Generated from engine/ir/Ops.def by cmake/GenerateOpFamilies.cmake: do not edit.\n")
string(APPEND text "#pragma once\n#define DFC_FAMILY_STRUCTS(Suffix, Member)")
foreach(family IN LISTS families)
  string(APPEND text " \\\n  struct ${family}##Suffix {${members_${family}} };")
endforeach()
string(APPEND text "\n")
# Rewrite only on change, so an edit of Ops.def's comments rebuilds nothing.
file(WRITE "${OUT}.tmp" "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
