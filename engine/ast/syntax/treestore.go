package syntax

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// The tree store keeps the records a grammar made of a file in the user's
// cache directory (aw/trees), keyed by the grammar's sha256 and the
// source's, so a file is parsed once per version and not on every search:
// an agent searching one repository many times pays the grammar for what
// changed. A record holds the tree's shape (kinds and byte offsets), never
// the source's text. It is a cache: a record that fails a check is ignored
// and written again, and the directory may be deleted at any time.
//
// Decisions: sources under storeMin bytes are not stored (parsing them
// costs less than reading a record back, and patterns are never stored);
// records are written without fsync (a torn one fails its checksum); the
// store is pruned at most once a day, by a process that wrote to it: the
// directories of grammars this build does not carry go, then the oldest
// records until the store is under storeCap.

const (
	storeMin    = 2 << 10
	storeMagic  = "awtree1\x00"
	storeHeader = len(storeMagic) + sha256.Size + 4 + 4 + 4 + 4 // magic, source sum, source length, ok, count, crc
	pruneEvery  = 24 * time.Hour
)

// storeCap bounds the store's size on disk (a variable for tests).
var storeCap int64 = 512 << 20

// storeBase is the store's directory, or "" when the user has no cache
// directory (then every file is parsed).
var storeBase = sync.OnceValue(func() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "aw", "trees")
})

// checksum is a record's CRC-32C (its table made on first use, not at
// start-up).
func checksum(b []byte) uint32 { return crc32.Checksum(b, crcTable()) }

var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// storeDir is one grammar's directory: its id and the first bytes of its
// recorded sha256, so a rebuilt grammar never reads another's records.
func storeDir(id string) string {
	if base := storeBase(); base != "" {
		if name := storeNames()[id]; name != "" {
			return filepath.Join(base, name)
		}
	}
	return ""
}

// storeNames are the directory names of this build's grammars, by id.
var storeNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{}
	for _, line := range strings.Split(grammarSums, "\n") {
		if sum, file, ok := strings.Cut(strings.TrimSpace(line), "  "); ok && len(sum) >= 16 {
			id := strings.TrimSuffix(file, ".wasm")
			names[id] = id + "-" + sum[:16]
		}
	}
	return names
})

// storeKey names a source's record.
func storeKey(src []byte) [sha256.Size]byte { return sha256.Sum256(src) }

// A record is a header (magic, the source's sha256 and length, whether it
// parsed without error, the node count, a CRC-32C of the rest) and the
// tree's nodes in preorder, each four uvarints: sym<<1|named, its start
// less the previous node's start, its length, its child count. About a
// byte of record per byte of source.

// loadTree returns the tree stored for a source, or false.
func (g *grammar) loadTree(dir string, sum [sha256.Size]byte, src []byte) (t *Tree, ok, found bool) {
	b, err := os.ReadFile(filepath.Join(dir, hex.EncodeToString(sum[:])))
	if err != nil || len(b) < storeHeader || string(b[:len(storeMagic)]) != storeMagic {
		return nil, false, false
	}
	h := b[len(storeMagic):]
	if string(h[:sha256.Size]) != string(sum[:]) {
		return nil, false, false
	}
	h = h[sha256.Size:]
	size, good, count, crc := binary.LittleEndian.Uint32(h), binary.LittleEndian.Uint32(h[4:]), binary.LittleEndian.Uint32(h[8:]), binary.LittleEndian.Uint32(h[12:])
	body := b[storeHeader:]
	if int64(size) != int64(len(src)) || good > 1 || int64(count) > int64(len(body)) || checksum(body) != crc {
		return nil, false, false
	}
	d := &recordReader{body: body, kinds: g.kinds, size: len(src), nodes: make([]Node, 0, count)}
	root := d.node()
	if d.damaged || len(d.body) != 0 || root == nil {
		return nil, false, false
	}
	return &Tree{Root: root, Src: src}, good == 1, true
}

type recordReader struct {
	body    []byte
	kinds   []string
	size    int
	start   int // the previous node's
	nodes   []Node
	damaged bool
}

func (d *recordReader) uvarint() int {
	v, n := binary.Uvarint(d.body)
	if n <= 0 || v > uint64(d.size)<<17 {
		d.damaged = true
		return 0
	}
	d.body = d.body[n:]
	return int(v)
}

func (d *recordReader) node() *Node {
	kind, delta, length, kids := d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint()
	start := d.start + delta
	if d.damaged || start+length > d.size || kids > len(d.body) || len(d.nodes) == cap(d.nodes) {
		d.damaged = true
		return nil
	}
	d.start = start
	name := "ERROR"
	if k := kind >> 1; k < len(d.kinds) {
		name = d.kinds[k]
	}
	d.nodes = append(d.nodes, Node{Kind: name, Named: kind&1 == 1, sym: uint16(kind >> 1), Start: start, End: start + length})
	n := &d.nodes[len(d.nodes)-1]
	if kids > 0 {
		n.Children = make([]*Node, 0, kids)
	}
	for k := 0; k < kids && !d.damaged; k++ {
		n.Children = append(n.Children, d.node())
	}
	return n
}

// saveTree writes a source's record by rename, so a reader sees a whole
// record or none.
func saveTree(dir string, sum [sha256.Size]byte, t *Tree, ok bool) {
	b := make([]byte, storeHeader, storeHeader+len(t.Src))
	copy(b, storeMagic)
	copy(b[len(storeMagic):], sum[:])
	count, prev := 0, 0
	var put func(n *Node)
	put = func(n *Node) {
		count++
		kind := int(n.sym) << 1
		if n.Named {
			kind |= 1
		}
		b = binary.AppendUvarint(b, uint64(kind))
		b = binary.AppendUvarint(b, uint64(n.Start-prev))
		b = binary.AppendUvarint(b, uint64(n.End-n.Start))
		b = binary.AppendUvarint(b, uint64(len(n.Children)))
		prev = n.Start
		for _, c := range n.Children {
			put(c)
		}
	}
	put(t.Root)
	h := b[len(storeMagic)+sha256.Size:]
	good := uint32(0)
	if ok {
		good = 1
	}
	binary.LittleEndian.PutUint32(h, uint32(len(t.Src)))
	binary.LittleEndian.PutUint32(h[4:], good)
	binary.LittleEndian.PutUint32(h[8:], uint32(count))
	binary.LittleEndian.PutUint32(h[12:], checksum(b[storeHeader:]))
	f, err := os.CreateTemp(dir, ".tmp-")
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(dir, 0o700) == nil {
		// The first record of this grammar (or the store was deleted).
		f, err = os.CreateTemp(dir, ".tmp-")
	}
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(f.Name(), filepath.Join(dir, hex.EncodeToString(sum[:]))) != nil {
		os.Remove(f.Name())
		return
	}
	pruneOnce.Do(func() { prune(filepath.Dir(dir), time.Now()) })
}

var pruneOnce sync.Once

// prune keeps the store within storeCap, at most once a day: a stamp
// file's time says when it last ran.
func prune(base string, now time.Time) {
	stamp := filepath.Join(base, ".pruned")
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < pruneEvery {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return
	}
	os.Chtimes(stamp, now, now)
	current := map[string]bool{}
	for _, name := range storeNames() {
		current[name] = true
	}
	type record struct {
		path string
		size int64
		mod  time.Time
	}
	var records []record
	var total int64
	dirs, _ := os.ReadDir(base)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(base, d.Name())
		if !current[d.Name()] {
			os.RemoveAll(dir)
			continue
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			fi, err := f.Info()
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(dir, f.Name())
			if strings.HasPrefix(f.Name(), ".tmp-") {
				if now.Sub(fi.ModTime()) > time.Hour {
					os.Remove(p) // left by a process that died mid-write
				}
				continue
			}
			records = append(records, record{p, fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
	}
	if total <= storeCap {
		return
	}
	sort.Slice(records, func(i, j int) bool { return records[i].mod.Before(records[j].mod) })
	for _, r := range records {
		if total <= storeCap*3/4 {
			break
		}
		if os.Remove(r.path) == nil {
			total -= r.size
		}
	}
}
