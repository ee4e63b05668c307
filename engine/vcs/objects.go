package vcs

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// objectStore reads objects straight from the pack files and loose
// objects. go-git's storage decodes a pack's whole .idx into maps before
// its first lookup (20-30 ms for a 75,000-object pack), when a log or a
// status needs a few hundred objects: here a lookup is a binary search in
// the mapped .idx (version 2) and an inflate at the offset it names.
// Anything this reader does not handle (alternates, a version 1 .idx, a
// platform without mmap) is read through go-git's storage instead.
type objectStore struct {
	mu          sync.Mutex
	dir         string // the objects directory
	packs       []*pack
	loaded      bool
	fallback    storer.EncodedObjectStorer
	graph       commitgraph.Index
	graphLoaded bool
	zr          io.ReadCloser // one zlib reader, reset for every object

	// Inflated objects by pack position: delta chains share their bases
	// (a tree's chain can be 50 deep), and log reads the same trees for
	// a commit and its parent. Cleared when it outgrows cacheLimit.
	cache     map[packPos]rawObject
	cacheSize int
}

const cacheLimit = 64 << 20

type packPos struct {
	p   *pack
	off uint64
}

type rawObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// pack is one mapped .idx (version 2) and its .pack. Slices of these
// mappings never leave this file: everything returned is inflated into
// fresh memory.
type pack struct {
	idx, data []byte
	count     int
	unmap     func()
}

func newObjectStore(dir string, fallback storer.EncodedObjectStorer) *objectStore {
	return &objectStore{dir: dir, fallback: fallback, cache: map[packPos]rawObject{}}
}

// read returns an object's type and content, which callers must not
// modify (it may be cached).
func (s *objectStore) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readLocked(h)
}

func (s *objectStore) readLocked(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if !s.loaded {
		s.loadPacks()
	}
	for _, p := range s.packs {
		if off, ok := p.find(h); ok {
			return s.readPacked(p, off)
		}
	}
	if typ, data, err := s.readLoose(h); err == nil || !errors.Is(err, os.ErrNotExist) {
		return typ, data, err
	}
	return s.readFallback(h)
}

// loadPacks maps every pack whose .idx is version 2; a pack it cannot map
// is left to the fallback.
func (s *objectStore) loadPacks() {
	s.loaded = true
	dir := filepath.Join(s.dir, "pack")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		if p, err := openPack(filepath.Join(dir, name)); err == nil {
			s.packs = append(s.packs, p)
			s.unmapLater(p.unmap)
		}
	}
}

func openPack(base string) (*pack, error) {
	idx, unmapIdx, err := mapFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	data, unmapData, err := mapFile(base + ".pack")
	if err != nil {
		unmapIdx()
		return nil, err
	}
	p := &pack{idx: idx, data: data, unmap: func() { unmapIdx(); unmapData() }}
	const hdr = 8 + 256*4
	if len(idx) < hdr+40 || string(idx[:8]) != "\xfftOc\x00\x00\x00\x02" || len(data) < 12 || string(data[:4]) != "PACK" {
		p.unmap()
		return nil, fmt.Errorf("%s: not a version 2 pack index", base)
	}
	p.count = int(binary.BigEndian.Uint32(idx[hdr-4:]))
	if len(idx) < hdr+p.count*28+40 {
		p.unmap()
		return nil, fmt.Errorf("%s: truncated pack index", base)
	}
	return p, nil
}

// find looks a hash up in the .idx: the fan-out table bounds the range of
// names starting with its first byte, a binary search finds it there.
func (p *pack) find(h plumbing.Hash) (uint64, bool) {
	const fan = 8
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.idx[fan+(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(p.idx[fan+int(h[0])*4:]))
	names := p.idx[fan+256*4:]
	if lo > hi || hi > p.count {
		return 0, false
	}
	i := lo + sort.Search(hi-lo, func(k int) bool {
		return bytes.Compare(names[(lo+k)*20:(lo+k)*20+20], h[:]) >= 0
	})
	if i == hi || !bytes.Equal(names[i*20:i*20+20], h[:]) {
		return 0, false
	}
	offs := fan + 256*4 + p.count*24 // after the names and their CRCs
	off := uint64(binary.BigEndian.Uint32(p.idx[offs+i*4:]))
	if off&0x80000000 != 0 {
		large := offs + p.count*4 + int(off&0x7fffffff)*8
		if large+8 > len(p.idx) {
			return 0, false
		}
		off = binary.BigEndian.Uint64(p.idx[large:])
	}
	return off, true
}

var errCorrupt = errors.New("corrupt pack entry")

// readPacked inflates the entry at off, applying deltas to their bases.
func (s *objectStore) readPacked(p *pack, off uint64) (plumbing.ObjectType, []byte, error) {
	key := packPos{p, off}
	if o, ok := s.cache[key]; ok {
		return o.typ, o.data, nil
	}
	if off >= uint64(len(p.data)) {
		return 0, nil, errCorrupt
	}
	b := p.data[off:]
	c := b[0]
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := uint64(c & 15)
	i, shift := 1, 4
	for c&0x80 != 0 {
		if i >= len(b) || shift > 60 {
			return 0, nil, errCorrupt
		}
		c = b[i]
		i++
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	var baseTyp plumbing.ObjectType
	var base []byte
	var err error
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		// The base sits a varint's distance before this entry.
		if i >= len(b) {
			return 0, nil, errCorrupt
		}
		c = b[i]
		i++
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) {
				return 0, nil, errCorrupt
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | uint64(c&0x7f)
		}
		if rel == 0 || rel > off {
			return 0, nil, errCorrupt
		}
		baseTyp, base, err = s.readPacked(p, off-rel)
	case plumbing.REFDeltaObject:
		if i+20 > len(b) {
			return 0, nil, errCorrupt
		}
		var bh plumbing.Hash
		copy(bh[:], b[i:i+20])
		i += 20
		baseTyp, base, err = s.readLocked(bh)
	default:
		return 0, nil, errCorrupt
	}
	if err != nil {
		return 0, nil, err
	}
	data, err := s.inflate(b[i:], size)
	if err != nil {
		return 0, nil, err
	}
	if base != nil {
		if data, err = applyDelta(base, data); err != nil {
			return 0, nil, err
		}
		typ = baseTyp
	}
	if s.cacheSize+len(data) > cacheLimit {
		clear(s.cache)
		s.cacheSize = 0
	}
	s.cache[key] = rawObject{typ, data}
	s.cacheSize += len(data)
	return typ, data, nil
}

// unmapLater unmaps a file once the store is garbage: aw mcp opens a
// repository per call, while a one-shot command exits first and saves the
// munmap (its TLB shootdown across threads costs more than a log's walk).
// Nothing returned by the store points into a mapping.
func (s *objectStore) unmapLater(unmap func()) {
	runtime.AddCleanup(s, func(unmap func()) { unmap() }, unmap)
}

// commitGraph is the commit-graph file (parents, root tree and commit time
// of each commit without inflating it), nil when there is none. Only a
// single file is read: with a split chain commits are inflated instead,
// which is slower, not wrong.
func (s *objectStore) commitGraph() commitgraph.Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.graphLoaded {
		s.graphLoaded = true
		if b, unmap, err := mapFile(filepath.Join(s.dir, "info", "commit-graph")); err == nil {
			if g, err := commitgraph.OpenFileIndex(mappedFile{bytes.NewReader(b)}); err == nil {
				s.graph = g
				s.unmapLater(unmap)
			} else {
				unmap()
			}
		}
	}
	return s.graph
}

// mappedFile lets go-git's commit-graph reader read a mapped file.
type mappedFile struct{ *bytes.Reader }

func (mappedFile) Close() error { return nil }

// inflate decompresses one zlib stream of a known size into fresh memory.
func (s *objectStore) inflate(b []byte, size uint64) ([]byte, error) {
	if size > uint64(len(b))*1032+64 {
		return nil, errCorrupt // more than deflate can expand to
	}
	var err error
	if s.zr == nil {
		s.zr, err = zlib.NewReader(bytes.NewReader(b))
	} else {
		err = s.zr.(zlib.Resetter).Reset(bytes.NewReader(b), nil)
	}
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(s.zr, out); err != nil {
		return nil, fmt.Errorf("inflating an object: %w", err)
	}
	return out, nil
}

// readLoose reads objects/xx/yyyy...: a zlib stream of "type size\0data".
func (s *objectStore) readLoose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(s.dir, hex[:2], hex[2:]))
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return 0, nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return 0, nil, err
	}
	hdr, data, ok := bytes.Cut(raw, []byte{0})
	typName, sizeText, ok2 := strings.Cut(string(hdr), " ")
	typ, err := plumbing.ParseObjectType(typName)
	size, err2 := strconv.Atoi(sizeText)
	if !ok || !ok2 || err != nil || err2 != nil || size != len(data) {
		return 0, nil, fmt.Errorf("loose object %s is corrupt", hex)
	}
	return typ, data, nil
}

func (s *objectStore) readFallback(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	if s.fallback == nil {
		return 0, nil, plumbing.ErrObjectNotFound
	}
	o, err := s.fallback.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, nil, err
	}
	r, err := o.Reader()
	if err != nil {
		return 0, nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	return o.Type(), data, err
}

// applyDelta rebuilds an object from its base and a git delta: the two
// sizes, then copy-from-base and insert instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta := deltaSize(delta)
	dstSize, delta := deltaSize(delta)
	if srcSize != uint64(len(base)) || dstSize > uint64(len(delta))<<24 { // an instruction yields at most 16 MiB
		return nil, errCorrupt
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, n uint64
			for k := 0; k < 7; k++ {
				if cmd&(1<<k) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, errCorrupt
				}
				if k < 4 {
					off |= uint64(delta[0]) << (8 * k)
				} else {
					n |= uint64(delta[0]) << (8 * (k - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(base)) {
				return nil, errCorrupt
			}
			out = append(out, base[off:off+n]...)
		case cmd != 0:
			if int(cmd) > len(delta) {
				return nil, errCorrupt
			}
			out = append(out, delta[:cmd]...)
			delta = delta[cmd:]
		default:
			return nil, errCorrupt
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errCorrupt
	}
	return out, nil
}

// deltaSize reads a delta header's little-endian base-128 size.
func deltaSize(b []byte) (uint64, []byte) {
	var n uint64
	for shift := 0; len(b) > 0 && shift < 64; shift += 7 {
		c := b[0]
		b = b[1:]
		n |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return n, b
}

// objects is the repository's object reader, opened on first use.
func (rp *repo) objects() *objectStore {
	if rp.objs == nil {
		rp.objs = newObjectStore(filepath.Join(rp.commonDir(), "objects"), rp.r.Storer)
	}
	return rp.objs
}

// readAs reads an object that must be of type want.
func (rp *repo) readAs(h plumbing.Hash, want plumbing.ObjectType) ([]byte, error) {
	typ, data, err := rp.objects().read(h)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typ, want)
	}
	return data, nil
}

// commit reads a commit: its tree, parents, author, committer and
// message (go-git's decoder, which also keeps signatures and extra headers
// aw never reads, took a third of a 50-commit log).
func (rp *repo) commit(h plumbing.Hash) (*object.Commit, error) {
	data, err := rp.readAs(h, plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	c := &object.Commit{Hash: h}
	sawTree := false
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break // the blank line before the message
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			if c.TreeHash, err = parseHash(val); err != nil {
				return nil, fmt.Errorf("commit %s: %w", h, err)
			}
			sawTree = true
		case "parent":
			p, err := parseHash(val)
			if err != nil {
				return nil, fmt.Errorf("commit %s: %w", h, err)
			}
			c.ParentHashes = append(c.ParentHashes, p)
		case "author":
			c.Author.Decode(val)
		case "committer":
			c.Committer.Decode(val)
		}
		// Other headers (gpgsig, mergetag, encoding) and their
		// continuation lines (a leading space: an empty key) are skipped.
	}
	if !sawTree {
		return nil, fmt.Errorf("commit %s has no tree", h)
	}
	c.Message = string(data)
	return c, nil
}

func parseHash(b []byte) (plumbing.Hash, error) {
	var h plumbing.Hash
	if len(b) != 40 {
		return h, fmt.Errorf("bad object name %q", b)
	}
	_, err := hex.Decode(h[:], b)
	return h, err
}

// blob reads a blob's content.
func (rp *repo) blob(h plumbing.Hash) ([]byte, error) {
	return rp.readAs(h, plumbing.BlobObject)
}

// tree reads a tree's entries.
func (rp *repo) tree(h plumbing.Hash) ([]object.TreeEntry, error) {
	data, err := rp.readAs(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	var out []object.TreeEntry
	for len(data) > 0 {
		mode, name, hash, rest, ok := nextTreeEntry(data)
		if !ok {
			return nil, fmt.Errorf("tree %s is corrupt", h)
		}
		out = append(out, object.TreeEntry{Name: name, Mode: filemode.FileMode(mode), Hash: hash})
		data = rest
	}
	return out, nil
}

// treeLookup finds one name in a tree without decoding the other entries.
func (rp *repo) treeLookup(h plumbing.Hash, name string) (mode uint32, hash plumbing.Hash, found bool, err error) {
	data, err := rp.readAs(h, plumbing.TreeObject)
	if err != nil {
		return 0, plumbing.ZeroHash, false, err
	}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+21 > len(data) {
			return 0, plumbing.ZeroHash, false, fmt.Errorf("tree %s is corrupt", h)
		}
		if string(data[sp+1:nul]) == name {
			mode, _, hash, _, _ := nextTreeEntry(data)
			return mode, hash, true, nil
		}
		data = data[nul+21:]
	}
	return 0, plumbing.ZeroHash, false, nil
}

// nextTreeEntry parses "<octal mode> <name>\0<20-byte hash>".
func nextTreeEntry(data []byte) (mode uint32, name string, hash plumbing.Hash, rest []byte, ok bool) {
	sp := bytes.IndexByte(data, ' ')
	nul := bytes.IndexByte(data, 0)
	if sp <= 0 || nul < sp || nul+21 > len(data) {
		return 0, "", hash, nil, false
	}
	for _, c := range data[:sp] {
		if c < '0' || c > '7' {
			return 0, "", hash, nil, false
		}
		mode = mode<<3 | uint32(c-'0')
	}
	copy(hash[:], data[nul+1:nul+21])
	return mode, string(data[sp+1 : nul]), hash, data[nul+21:], true
}
