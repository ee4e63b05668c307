// The bridge between aw and one tree-sitter grammar compiled to wasm32-wasi.
// aw writes source into memory from aw_alloc, calls aw_parse, and reads the
// tree back as a flat preorder array of 4 uint32 per node:
//   kind | named<<16 | extra<<17, start byte, end byte, child count.
// One flat copy per parse keeps the host from crossing into the module once
// per node. The copy walks the runtime's subtrees directly (its private
// headers), visiting the nodes a TSTreeCursor would, in the same order and
// with the same kind, flags and offsets, without the cursor's per-step cost.
#include <stdint.h>
#include <stdlib.h>
#include "tree_sitter/api.h"
#include "language.h"
#include "subtree.h"
#include "tree.h"

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

// frame is one subtree whose children are being visited: pos is the byte
// where the next child starts, rec the record of the nearest node the
// cursor shows (a hidden node's children are its children).
typedef struct {
  const Subtree *kids;
  uint32_t count, next, structural, pos, rec;
  const TSSymbol *aliases;
} frame;

static frame *frames;
static uint32_t frames_cap;

static int push(uint32_t *depth, Subtree t, uint32_t pos, uint32_t rec, const TSLanguage *lang) {
  if (*depth == frames_cap) {
    uint32_t cap = frames_cap ? frames_cap * 2 : 256;
    frame *n = realloc(frames, cap * sizeof(frame));
    if (!n) return 0;
    frames = n;
    frames_cap = cap;
  }
  frames[(*depth)++] = (frame){
    .kids = ts_subtree_children(t),
    .count = t.ptr->child_count,
    .pos = pos,
    .rec = rec,
    .aliases = ts_language_alias_sequence(lang, t.ptr->production_id),
  };
  return 1;
}

static uint32_t flags_of(const TSLanguage *lang, Subtree t, TSSymbol alias) {
  TSSymbol sym = alias ? alias : ts_subtree_symbol(t);
  bool named = alias ? ts_language_symbol_metadata(lang, alias).named : ts_subtree_named(t);
  return (uint32_t)ts_language_public_symbol(lang, sym) | (named ? 1u << 16 : 0) | (ts_subtree_extra(t) ? 1u << 17 : 0);
}

// flatten writes the tree's records; the number written, or -1 when out of
// memory. A child is shown when it is visible or aliased (an extra never
// is); a hidden one with shown descendants is entered, as the cursor does.
static int32_t flatten(const TSTree *tree) {
  const TSLanguage *lang = tree->language;
  Subtree root = tree->root;
  uint32_t start = ts_subtree_padding(root).bytes;
  if (!emit(flags_of(lang, root, 0), start, start + ts_subtree_size(root).bytes, 0)) return -1;
  uint32_t depth = 0;
  if (ts_subtree_child_count(root) > 0 && !push(&depth, root, start, 0, lang)) return -1;
  while (depth > 0) {
    frame *f = &frames[depth - 1];
    if (f->next == f->count) {
      depth--;
      continue;
    }
    Subtree kid = f->kids[f->next];
    uint32_t at = f->pos;
    TSSymbol alias = 0;
    bool shown = ts_subtree_visible(kid);
    if (!ts_subtree_extra(kid)) {
      if (f->aliases) {
        alias = f->aliases[f->structural];
        shown |= alias != 0;
      }
      f->structural++;
    }
    f->pos = at + ts_subtree_size(kid).bytes;
    if (++f->next < f->count) f->pos += ts_subtree_padding(f->kids[f->next]).bytes;
    uint32_t rec = f->rec;
    if (shown) {
      out[rec * 4 + 3]++;
      rec = out_len / 4;
      if (!emit(flags_of(lang, kid, alias), at, at + ts_subtree_size(kid).bytes, 0)) return -1;
      if (ts_subtree_child_count(kid) > 0 && !push(&depth, kid, at, rec, lang)) return -1;
    } else if (ts_subtree_child_count(kid) > 0 && kid.ptr->visible_child_count > 0) {
      if (!push(&depth, kid, at, rec, lang)) return -1;
    }
  }
  return (int32_t)(out_len / 4);
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
  has_error = ts_node_has_error(ts_tree_root_node(tree));
  int32_t nodes = flatten(tree);
  ts_tree_delete(tree);
  return nodes;
}
