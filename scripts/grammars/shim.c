// The bridge between aw and one tree-sitter grammar compiled to wasm32-wasi.
// aw writes source into memory from aw_alloc, calls aw_parse, and reads the
// tree back as a flat preorder array of 4 uint32 per node:
//   kind | named<<16 | extra<<17, start byte, end byte, child count.
// One flat copy per parse keeps the host from crossing into the module once
// per node.
#include <stdint.h>
#include <stdlib.h>
#include "tree_sitter/api.h"

const TSLanguage *AW_LANGUAGE(void);

static TSParser *parser;
static uint32_t *out;
static uint32_t out_len, out_cap;
static int32_t has_error;

__attribute__((export_name("aw_alloc"))) void *aw_alloc(uint32_t n) { return malloc(n); }
__attribute__((export_name("aw_free"))) void aw_free(void *p) { free(p); }
__attribute__((export_name("aw_out"))) uint32_t *aw_out(void) { return out; }
__attribute__((export_name("aw_has_error"))) int32_t aw_has_error(void) { return has_error; }

__attribute__((export_name("aw_symbol_count"))) uint32_t aw_symbol_count(void) {
  return ts_language_symbol_count(AW_LANGUAGE());
}
__attribute__((export_name("aw_symbol_name"))) const char *aw_symbol_name(uint32_t s) {
  return ts_language_symbol_name(AW_LANGUAGE(), (TSSymbol)s);
}

static int emit(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  if (out_len + 4 > out_cap) {
    uint32_t cap = out_cap ? out_cap * 2 : 4096;
    uint32_t *n = realloc(out, cap * sizeof(uint32_t));
    if (!n) return 0;
    out = n;
    out_cap = cap;
  }
  out[out_len++] = a;
  out[out_len++] = b;
  out[out_len++] = c;
  out[out_len++] = d;
  return 1;
}

// aw_parse returns the number of nodes written, or -1 when out of memory.
__attribute__((export_name("aw_parse"))) int32_t aw_parse(const char *src, uint32_t len) {
  if (!parser) {
    parser = ts_parser_new();
    ts_parser_set_language(parser, AW_LANGUAGE());
  }
  out_len = 0;
  TSTree *tree = ts_parser_parse_string(parser, NULL, src, len);
  if (!tree) return -1;
  TSNode root = ts_tree_root_node(tree);
  has_error = ts_node_has_error(root);
  TSTreeCursor c = ts_tree_cursor_new(root);
  int32_t nodes = 0;
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    uint32_t flags = (uint32_t)ts_node_symbol(n) | (ts_node_is_named(n) ? 1u << 16 : 0) | (ts_node_is_extra(n) ? 1u << 17 : 0);
    if (!emit(flags, ts_node_start_byte(n), ts_node_end_byte(n), ts_node_child_count(n))) {
      nodes = -1;
      break;
    }
    nodes++;
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
    }
  }
done:
  ts_tree_cursor_delete(&c);
  ts_tree_delete(tree);
  return nodes;
}
