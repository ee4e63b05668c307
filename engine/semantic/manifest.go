package semantic

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/agentic-workspace/aw/engine/store"
)

// formatVersion is the version of the manifest and segment layouts, and of
// the analysis that fills them (tokenizer, stemmer, chunker): a change to
// any of them bumps it, and an index of another version is rebuilt.
const formatVersion = 2

const manifestMagic = "AWBM25M1"

// fileEntry is what the index knows about one file: enough to tell by a
// stat that it did not change (size, mtime, inode), its content hash for
// when the stat says it might have, and the segment holding its chunks.
type fileEntry struct {
	path   string
	size   int64
	mtime  int64 // nanoseconds
	ino    uint64
	hash   [16]byte
	seg    uint32 // 0: read once and skipped (binary, too large), in no segment
	chunks uint32
	slot   int // its number in one walk (not stored)
}

// manifest is the index's table of contents; it is replaced atomically,
// after the segments it names are on disk.
type manifest struct {
	base     string // the root-relative directory indexed
	builtAt  int64  // unix nanoseconds of the last update
	nextSeg  uint32
	watch    string   // the tree watch's token the files are known as of ("": none)
	segments []uint32 // the base segment first, then at most one delta
	files    map[string]*fileEntry
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func (m *manifest) encode() []byte {
	b := make([]byte, 0, 64+len(m.files)*64)
	b = append(b, manifestMagic...)
	b = binary.LittleEndian.AppendUint32(b, formatVersion)
	b = binary.LittleEndian.AppendUint32(b, 0) // the checksum, filled below
	body := len(b)
	b = appendString(b, m.base)
	b = binary.AppendVarint(b, m.builtAt)
	b = binary.AppendUvarint(b, uint64(m.nextSeg))
	b = appendString(b, m.watch)
	b = binary.AppendUvarint(b, uint64(len(m.segments)))
	for _, s := range m.segments {
		b = binary.AppendUvarint(b, uint64(s))
	}
	b = binary.AppendUvarint(b, uint64(len(m.files)))
	for _, p := range sortedPaths(m.files) {
		f := m.files[p]
		b = appendString(b, f.path)
		b = binary.AppendVarint(b, f.size)
		b = binary.AppendVarint(b, f.mtime)
		b = binary.AppendUvarint(b, f.ino)
		b = append(b, f.hash[:]...)
		b = binary.AppendUvarint(b, uint64(f.seg))
		b = binary.AppendUvarint(b, uint64(f.chunks))
	}
	binary.LittleEndian.PutUint32(b[body-4:], crc32.Checksum(b[body:], crcTable))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeManifest reads a manifest; any damage is an error (the index is
// then rebuilt, never trusted).
// minFileRecord is the fewest bytes one file's record takes.
const minFileRecord = 1 + 1 + 1 + 1 + 16 + 1 + 1

func decodeManifest(b []byte) (*manifest, error) {
	if len(b) < 16 || string(b[:8]) != manifestMagic {
		return nil, fmt.Errorf("%w: the manifest has no index header", errCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != formatVersion {
		return nil, fmt.Errorf("%w: the index has format %d, this aw writes %d", errStale, v, formatVersion)
	}
	if crc32.Checksum(b[16:], crcTable) != binary.LittleEndian.Uint32(b[12:]) {
		return nil, fmt.Errorf("%w: the manifest checksum does not match", errCorrupt)
	}
	body := b[16:]
	r := store.NewDecoder(body, errCorrupt)
	m := &manifest{base: r.String(), builtAt: r.Varint(), nextSeg: uint32(r.Uvarint()), watch: r.String()}
	ns := r.Uvarint()
	if ns > 2 {
		return nil, fmt.Errorf("%w: %d segments", errCorrupt, ns)
	}
	for i := uint64(0); i < ns; i++ {
		m.segments = append(m.segments, uint32(r.Uvarint()))
	}
	nf := r.Uvarint()
	if nf > uint64(r.Len()/minFileRecord) {
		return nil, fmt.Errorf("%w: file count", errCorrupt)
	}
	// Every query reads the manifest: its entries are one slice, and their
	// paths substrings of one copy of the body.
	whole := string(body)
	ents := make([]fileEntry, nf)
	m.files = make(map[string]*fileEntry, nf)
	for i := range ents {
		if r.Err() != nil {
			break
		}
		f := &ents[i]
		n := r.Uvarint()
		off := len(body) - r.Len()
		if r.Bytes(n); r.Err() != nil {
			break
		}
		f.path = whole[off : off+int(n)]
		f.size, f.mtime, f.ino = r.Varint(), r.Varint(), r.Uvarint()
		copy(f.hash[:], r.Bytes(16))
		f.seg, f.chunks = uint32(r.Uvarint()), uint32(r.Uvarint())
		m.files[f.path] = f
	}
	if r.Err() != nil || r.Len() != 0 {
		return nil, fmt.Errorf("%w: the manifest is truncated or has trailing data", errCorrupt)
	}
	return m, nil
}
