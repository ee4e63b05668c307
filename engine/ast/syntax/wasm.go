package syntax

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The languages other than Go are tree-sitter grammars compiled to
// wasm32-wasi by scripts/build-grammars (their sha256 in
// grammars/SHA256SUMS, checked before a module is compiled), run by wazero:
// pure Go, so the binary stays static and CGO-free. wazero compiles a
// module to native code once and keeps it in a compilation cache in the
// user's cache directory, so only the first call pays for it. Each
// language keeps up to one instance per core; an instance parses one file
// at a time.

//go:embed grammars/SHA256SUMS
var grammarSums string

// wasmRuntime is the one wazero runtime, made on first use (never at init:
// other commands do not pay for it).
var wasmRuntime = sync.OnceValues(func() (wazero.Runtime, error) {
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(false)
	if cache := compilationCache(); cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, err
	}
	return rt, nil
})

// compilationCache is aw's directory under the user's cache directory
// (mode 0700: the cache holds native code wazero runs), or nil when there
// is none: then every process compiles again.
func compilationCache() wazero.CompilationCache {
	base, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	dir := filepath.Join(base, "aw", "wazero")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return c
}

// grammar is one compiled module and its pool of instances.
type grammar struct {
	id    string
	wasm  []byte
	once  sync.Once
	mod   wazero.CompiledModule
	kinds []string
	err   error

	mu    sync.Mutex
	idle  []*instance
	count int
	freed *sync.Cond
}

type instance struct {
	mod                          api.Module
	alloc, free, parse, out, bad api.Function
}

func newGrammar(id string, wasm []byte) *grammar {
	g := &grammar{id: id, wasm: wasm}
	g.freed = sync.NewCond(&g.mu)
	return g
}

func (g *grammar) compile() error {
	g.once.Do(func() {
		if err := checkSum(g.id, g.wasm); err != nil {
			g.err = err
			return
		}
		rt, err := wasmRuntime()
		if err != nil {
			g.err = err
			return
		}
		g.mod, g.err = rt.CompileModule(context.Background(), g.wasm)
		if g.err != nil {
			return
		}
		inst, err := g.instantiate()
		if err != nil {
			g.err = err
			return
		}
		g.kinds, g.err = inst.symbols()
		g.idle = append(g.idle, inst)
		g.count = 1
	})
	return g.err
}

// checkSum refuses a module whose bytes are not the ones SHA256SUMS lists.
func checkSum(id string, wasm []byte) error {
	sum := sha256.Sum256(wasm)
	want := hex.EncodeToString(sum[:]) + "  " + id + ".wasm"
	for _, line := range strings.Split(grammarSums, "\n") {
		if strings.TrimSpace(line) == want {
			return nil
		}
	}
	return fmt.Errorf("the %s grammar does not match its recorded sha256: the build is damaged", id)
}

func (g *grammar) instantiate() (*instance, error) {
	rt, err := wasmRuntime()
	if err != nil {
		return nil, err
	}
	m, err := rt.InstantiateModule(context.Background(), g.mod, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, fmt.Errorf("cannot start the %s grammar: %v", g.id, err)
	}
	in := &instance{mod: m, alloc: m.ExportedFunction("aw_alloc"), free: m.ExportedFunction("aw_free"),
		parse: m.ExportedFunction("aw_parse"), out: m.ExportedFunction("aw_out"), bad: m.ExportedFunction("aw_has_error")}
	if in.alloc == nil || in.free == nil || in.parse == nil || in.out == nil || in.bad == nil {
		return nil, fmt.Errorf("the %s grammar lacks aw's exports", g.id)
	}
	return in, nil
}

func (in *instance) symbols() ([]string, error) {
	ctx := context.Background()
	n, err := in.mod.ExportedFunction("aw_symbol_count").Call(ctx)
	if err != nil {
		return nil, err
	}
	name := in.mod.ExportedFunction("aw_symbol_name")
	mem := in.mod.Memory()
	kinds := make([]string, n[0])
	for i := range kinds {
		p, err := name.Call(ctx, uint64(i))
		if err != nil {
			return nil, err
		}
		kinds[i] = cString(mem, uint32(p[0]))
	}
	return kinds, nil
}

func cString(mem api.Memory, p uint32) string {
	var b []byte
	for {
		c, ok := mem.ReadByte(p)
		if !ok || c == 0 {
			return string(b)
		}
		b = append(b, c)
		p++
	}
}

// get takes an idle instance, starts one while there are fewer than cores,
// or waits for one.
func (g *grammar) get() (*instance, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if n := len(g.idle); n > 0 {
			in := g.idle[n-1]
			g.idle = g.idle[:n-1]
			return in, nil
		}
		if g.count < runtime.GOMAXPROCS(0) {
			g.count++
			g.mu.Unlock()
			in, err := g.instantiate()
			g.mu.Lock()
			if err != nil {
				g.count--
			}
			return in, err
		}
		g.freed.Wait()
	}
}

func (g *grammar) put(in *instance) {
	g.mu.Lock()
	g.idle = append(g.idle, in)
	g.mu.Unlock()
	g.freed.Signal()
}

// parse builds the tree of src from the tree store's records of it, or
// runs the grammar over it (and stores what the grammar made).
func (g *grammar) parse(src []byte) (*Tree, bool, error) {
	if err := g.compile(); err != nil {
		return nil, false, err
	}
	dir := ""
	var sum [sha256.Size]byte
	if len(src) >= storeMin {
		dir = storeDir(g.id)
	}
	if dir != "" {
		sum = storeKey(src)
		if t, ok, found := g.loadTree(dir, sum, src); found {
			return t, ok, nil
		}
	}
	raw, ok, err := g.run(src)
	if err != nil {
		return nil, false, err
	}
	t := g.tree(raw, src)
	if t == nil {
		return nil, false, fmt.Errorf("the %s parser made a damaged tree", g.id)
	}
	if dir != "" {
		saveTree(dir, sum, t, ok)
	}
	return t, ok, nil
}

// tree builds a Tree from flat records, or nil when they are damaged.
func (g *grammar) tree(raw, src []byte) *Tree {
	b := &flatTree{raw: raw, kinds: g.kinds, size: len(src), nodes: make([]Node, 0, len(raw)/16)}
	root, _ := b.build(0)
	if b.damaged {
		return nil
	}
	if root == nil {
		root = &Node{Kind: "program", Named: true, End: len(src)}
	}
	return &Tree{Root: root, Src: src}
}

// run parses src in an instance and returns a copy of its flat preorder
// records, and whether the source is free of syntax errors.
func (g *grammar) run(src []byte) ([]byte, bool, error) {
	in, err := g.get()
	if err != nil {
		return nil, false, err
	}
	broken := false
	defer func() {
		if !broken {
			g.put(in)
		}
	}()
	ctx := context.Background()
	fail := func(err error) ([]byte, bool, error) {
		// A trapped instance is dropped, not reused.
		broken = true
		g.mu.Lock()
		g.count--
		g.mu.Unlock()
		g.freed.Signal()
		in.mod.Close(ctx)
		return nil, false, fmt.Errorf("the %s parser failed: %v", g.id, err)
	}
	p, err := in.alloc.Call(ctx, uint64(len(src)+1))
	if err != nil || p[0] == 0 {
		return fail(fmt.Errorf("out of memory for %d bytes", len(src)))
	}
	ptr := uint32(p[0])
	mem := in.mod.Memory()
	if !mem.Write(ptr, src) {
		return fail(fmt.Errorf("cannot write the source"))
	}
	n, err := in.parse.Call(ctx, uint64(ptr), uint64(len(src)))
	if _, ferr := in.free.Call(ctx, uint64(ptr)); err == nil {
		err = ferr
	}
	if err != nil {
		return fail(err)
	}
	count := int32(uint32(n[0]))
	if count <= 0 {
		return fail(fmt.Errorf("no tree"))
	}
	o, err := in.out.Call(ctx)
	if err != nil {
		return fail(err)
	}
	view, ok := mem.Read(uint32(o[0]), uint32(count)*16)
	if !ok {
		return fail(fmt.Errorf("the tree is outside memory"))
	}
	bad, err := in.bad.Call(ctx)
	if err != nil {
		return fail(err)
	}
	raw := bytes.Clone(view) // the instance's memory is reused by its next parse
	return raw, bad[0] == 0 || onlyMissingSemicolons(raw, g.kinds), nil
}

// errorSymbol is tree-sitter's ERROR node.
const errorSymbol = 0xffff

// onlyMissingSemicolons: the parser's only complaint is a statement
// terminator it had to invent (`$$$BODY` standing for statements in a C or
// Java pattern has no `;`). Anything else, an ERROR node or another token
// invented, is a syntax error.
func onlyMissingSemicolons(raw []byte, kinds []string) bool {
	for i := 0; i+16 <= len(raw); i += 16 {
		rec := raw[i:]
		sym := binary.LittleEndian.Uint32(rec) & 0xffff
		if sym == errorSymbol {
			return false
		}
		start, end := binary.LittleEndian.Uint32(rec[4:]), binary.LittleEndian.Uint32(rec[8:])
		if start == end && (int(sym) >= len(kinds) || kinds[sym] != ";") {
			return false
		}
	}
	return true
}

// flatTree reads the module's records: kind|named<<16|extra<<17, start,
// end, child count. Comments (extras) and zero-width nodes (a missing
// token, an automatic semicolon) are left out of the tree. A record out
// of range (a module that misbehaved) marks the tree damaged instead of
// panicking.
type flatTree struct {
	raw     []byte
	kinds   []string
	size    int    // the source's length
	nodes   []Node // one allocation for the whole tree
	damaged bool
}

func (b *flatTree) build(i int) (*Node, int) {
	rec := b.raw[i*16:]
	flags := binary.LittleEndian.Uint32(rec)
	start := int(binary.LittleEndian.Uint32(rec[4:]))
	end := int(binary.LittleEndian.Uint32(rec[8:]))
	kids := int(binary.LittleEndian.Uint32(rec[12:]))
	next := i + 1
	if start > end || end > b.size || kids > len(b.raw)/16 {
		b.damaged = true
		return nil, next
	}
	keep := flags&(1<<17) == 0 && end > start
	var n *Node
	if keep {
		kind := "ERROR"
		if s := int(flags & 0xffff); s < len(b.kinds) {
			kind = b.kinds[s]
		}
		b.nodes = append(b.nodes, Node{Kind: kind, Named: flags&(1<<16) != 0, sym: uint16(flags), Start: start, End: end})
		n = &b.nodes[len(b.nodes)-1]
		if kids > 0 {
			n.Children = make([]*Node, 0, kids)
		}
	}
	for k := 0; k < kids && !b.damaged; k++ {
		var c *Node
		c, next = b.build(next)
		if n != nil && c != nil {
			n.Children = append(n.Children, c)
		}
	}
	return n, next
}
