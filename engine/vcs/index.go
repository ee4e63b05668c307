package vcs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// entry is one index entry, read without a per-entry allocation: names
// are substrings of one string holding the whole file (go-git's decoder
// allocates several objects per entry, which costs more than the whole of
// `git status` on a 70,000-file index).
type entry struct {
	name            string
	ctimeS, ctimeN  uint32
	mtimeS, mtimeN  uint32
	dev, ino        uint32
	mode            uint32
	uid, gid        uint32
	size            uint32
	hash            plumbing.Hash
	stage           uint8
	intentToAdd     bool
	skipWorktree    bool
	assumeUnchanged bool
}

// indexFile is the parsed .git/index.
type indexFile struct {
	entries  []entry
	version  uint32
	mtime    time.Time                // the index file's own mtime (racy-git check)
	trees    map[string]plumbing.Hash // valid cache-tree entries by directory ("" is the root)
	checksum string                   // the file's trailing hash, hex
}

var errIndexFormat = fmt.Errorf("the index file is not in a format aw reads")

// readIndex parses .git/index (versions 2-4, the TREE extension). A missing
// index is an empty one.
func readIndex(gitDir string) (*indexFile, error) {
	path := filepath.Join(gitDir, "index")
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &indexFile{version: 2, trees: map[string]plumbing.Hash{}}, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	idx := &indexFile{mtime: fi.ModTime(), trees: map[string]plumbing.Hash{}}
	if len(raw) < 12+20 || string(raw[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	idx.version = binary.BigEndian.Uint32(raw[4:8])
	if idx.version < 2 || idx.version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", idx.version)
	}
	n := int(binary.BigEndian.Uint32(raw[8:12]))
	idx.checksum = fmt.Sprintf("%x", raw[len(raw)-20:])
	body := raw[:len(raw)-20]
	all := string(body) // one copy; names are substrings of it
	idx.entries = make([]entry, n)
	off := 12
	prev := ""
	for i := 0; i < n; i++ {
		if off+62 > len(body) {
			return nil, errIndexFormat
		}
		b := body[off:]
		e := &idx.entries[i]
		e.ctimeS = binary.BigEndian.Uint32(b[0:])
		e.ctimeN = binary.BigEndian.Uint32(b[4:])
		e.mtimeS = binary.BigEndian.Uint32(b[8:])
		e.mtimeN = binary.BigEndian.Uint32(b[12:])
		e.dev = binary.BigEndian.Uint32(b[16:])
		e.ino = binary.BigEndian.Uint32(b[20:])
		e.mode = binary.BigEndian.Uint32(b[24:])
		e.uid = binary.BigEndian.Uint32(b[28:])
		e.gid = binary.BigEndian.Uint32(b[32:])
		e.size = binary.BigEndian.Uint32(b[36:])
		copy(e.hash[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.stage = uint8(flags>>12) & 3
		e.assumeUnchanged = flags&0x8000 != 0
		hdr := 62
		if flags&0x4000 != 0 {
			if idx.version < 3 || off+64 > len(body) {
				return nil, errIndexFormat
			}
			ext := binary.BigEndian.Uint16(b[62:])
			e.skipWorktree = ext&0x4000 != 0
			e.intentToAdd = ext&0x2000 != 0
			hdr = 64
		}
		start := off + hdr
		if idx.version == 4 {
			// The name is: strip N bytes from the previous name (a
			// varint), then a NUL-terminated suffix; no padding.
			strip, used := readOffsetVarint(body[start:])
			if used == 0 || strip > len(prev) {
				return nil, errIndexFormat
			}
			end := bytes.IndexByte(body[start+used:], 0)
			if end < 0 {
				return nil, errIndexFormat
			}
			e.name = prev[:len(prev)-strip] + all[start+used:start+used+end]
			prev = e.name
			off = start + used + end + 1
			continue
		}
		end := bytes.IndexByte(body[start:], 0)
		if end < 0 {
			return nil, errIndexFormat
		}
		e.name = all[start : start+end]
		// Entries are padded with 1-8 NULs to a multiple of 8 bytes.
		entryLen := hdr + end
		off += (entryLen + 8) &^ 7
	}
	// Extensions.
	for off+8 <= len(body) {
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		off += 8
		if off+size > len(body) {
			return nil, errIndexFormat
		}
		switch sig {
		case "TREE":
			parseCacheTree(body[off:off+size], idx.trees)
		case "link":
			return nil, fmt.Errorf("split indexes (core.splitIndex) are not supported; run `git update-index --no-split-index` once")
		case "sdir":
			return nil, fmt.Errorf("sparse indexes are not supported; run `git sparse-checkout disable` or `git update-index --no-sparse`")
		}
		off += size
	}
	return idx, nil
}

// readOffsetVarint reads git's offset varint (index v4 name compression).
func readOffsetVarint(b []byte) (int, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := int(c & 0x7f)
	i := 1
	for c&0x80 != 0 {
		if i >= len(b) {
			return 0, 0
		}
		val++
		c = b[i]
		i++
		val = (val << 7) + int(c&0x7f)
	}
	return val, i
}

// parseCacheTree reads the TREE extension: pre-order entries "path\0count
// subtrees\n[hash]", where an invalidated directory has count -1 and no
// hash. Only valid directories are recorded, by full path.
func parseCacheTree(b []byte, out map[string]plumbing.Hash) {
	var walk func(dir string) bool
	walk = func(dir string) bool {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return false
		}
		name := string(b[:nul])
		b = b[nul+1:]
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return false
		}
		var count, subtrees int
		if _, err := fmt.Sscanf(string(b[:nl]), "%d %d", &count, &subtrees); err != nil {
			return false
		}
		b = b[nl+1:]
		path := name
		if dir != "" {
			path = dir + "/" + name
		}
		if count >= 0 {
			if len(b) < 20 {
				return false
			}
			var h plumbing.Hash
			copy(h[:], b[:20])
			b = b[20:]
			out[path] = h
		}
		for i := 0; i < subtrees; i++ {
			if !walk(path) {
				return false
			}
		}
		return true
	}
	walk("")
}

// find returns the position of the first entry named name (any stage), or
// where it would be.
func (idx *indexFile) find(name string) int {
	return sort.Search(len(idx.entries), func(i int) bool { return idx.entries[i].name >= name })
}

// under returns the range of entries whose names start with dir + "/"
// ("" is everything).
func (idx *indexFile) under(dir string) (int, int) {
	if dir == "" {
		return 0, len(idx.entries)
	}
	p := dir + "/"
	lo := idx.find(p)
	hi := lo + sort.Search(len(idx.entries)-lo, func(i int) bool { return !strings.HasPrefix(idx.entries[lo+i].name, p) })
	return lo, hi
}

// File modes as the index and trees store them.
const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
	modeDir     = 0o040000
)
