package semantic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// A segment is an immutable, self-describing part of the index: the chunks
// of a set of files, a sorted term dictionary and each term's postings. It
// is read in place (memory-mapped), so a query touches only the
// dictionary pages and the postings of its own terms.
//
// Layout, little-endian: a fixed header, then the sections it points to.
//
//	files    nFiles × {pathOff, pathLen, firstChunk u32, lang u8, flags u8, 2 pad}
//	chunks   nChunks × {file, start, end, symOff u32, symLen u16, lens 4×u16}
//	terms    (nTerms+1) × {strOff, postOff u32} (a sentinel closes the last)
//	strings  paths, symbols and terms
//	postings per term: uvarint chunk delta, a field mask, one tf byte per set field
const (
	segMagic     = "AWBM25S1"
	headerSize   = 8 + 4*4 + 8*nFields + 8*5
	fileRecSize  = 16
	chunkRecSize = 4*4 + 2 + 2*nFields
	termRecSize  = 8
)

var errCorrupt = errors.New("index segment is corrupt")

// encodeSegment writes the files (sorted by path) as one segment.
func encodeSegment(files []analyzedFile) []byte {
	// One dictionary for the segment: every worker's terms, sorted.
	owners := map[*analyzer]bool{}
	for _, f := range files {
		owners[f.owner] = true
	}
	seen := map[string]uint32{}
	var all []string
	for a := range owners {
		for _, t := range a.terms {
			if _, ok := seen[t]; !ok {
				seen[t] = 0
				all = append(all, t)
			}
		}
	}
	sort.Strings(all)
	for i, t := range all {
		seen[t] = uint32(i)
	}
	remap := map[*analyzer][]uint32{}
	for a := range owners {
		m := make([]uint32, len(a.terms))
		for i, t := range a.terms {
			m[i] = seen[t]
		}
		remap[a] = m
	}

	// Postings by term, in chunk order (a counting sort).
	nChunks := 0
	df := make([]uint32, len(all))
	for _, f := range files {
		m := remap[f.owner]
		for _, c := range f.chunks {
			for i := range c.postings {
				c.postings[i].term = m[c.postings[i].term]
				df[c.postings[i].term]++
			}
			nChunks++
		}
	}
	offs := make([]uint32, len(all)+1)
	for i, n := range df {
		offs[i+1] = offs[i] + n
	}
	type slotted struct {
		chunk uint32
		tf    [nFields]uint8
	}
	flat := make([]slotted, offs[len(all)])
	fill := slices.Clone(offs[:len(all)])
	var lenSums [nFields]uint64
	ci := uint32(0)
	for _, f := range files {
		for _, c := range f.chunks {
			for _, p := range c.postings {
				flat[fill[p.term]] = slotted{ci, p.tf}
				fill[p.term]++
			}
			for k := range lenSums {
				lenSums[k] += uint64(c.lens[k])
			}
			ci++
		}
	}

	var strs []byte
	addStr := func(s string) (uint32, uint32) {
		off := uint32(len(strs))
		strs = append(strs, s...)
		return off, uint32(len(s))
	}
	filesSec := make([]byte, 0, len(files)*fileRecSize)
	chunksSec := make([]byte, 0, nChunks*chunkRecSize)
	first := uint32(0)
	for fi, f := range files {
		po, pl := addStr(f.entry.path)
		filesSec = binary.LittleEndian.AppendUint32(filesSec, po)
		filesSec = binary.LittleEndian.AppendUint32(filesSec, pl)
		filesSec = binary.LittleEndian.AppendUint32(filesSec, first)
		filesSec = append(filesSec, f.lang, f.flags, 0, 0)
		for _, c := range f.chunks {
			so, sl := addStr(c.symbol)
			chunksSec = binary.LittleEndian.AppendUint32(chunksSec, uint32(fi))
			chunksSec = binary.LittleEndian.AppendUint32(chunksSec, c.start)
			chunksSec = binary.LittleEndian.AppendUint32(chunksSec, c.end)
			chunksSec = binary.LittleEndian.AppendUint32(chunksSec, so)
			chunksSec = binary.LittleEndian.AppendUint16(chunksSec, uint16(min(sl, 65535)))
			for _, l := range c.lens {
				chunksSec = binary.LittleEndian.AppendUint16(chunksSec, l)
			}
			first++
		}
	}
	var post []byte
	termsSec := make([]byte, 0, (len(all)+1)*termRecSize)
	for t, s := range all {
		so, _ := addStr(s)
		termsSec = binary.LittleEndian.AppendUint32(termsSec, so)
		termsSec = binary.LittleEndian.AppendUint32(termsSec, uint32(len(post)))
		prev := uint32(0)
		post = binary.AppendUvarint(post, uint64(offs[t+1]-offs[t]))
		for _, p := range flat[offs[t]:offs[t+1]] {
			post = binary.AppendUvarint(post, uint64(p.chunk-prev))
			prev = p.chunk
			var mask byte
			for k, v := range p.tf {
				if v > 0 {
					mask |= 1 << k
				}
			}
			post = append(post, mask)
			for _, v := range p.tf {
				if v > 0 {
					post = append(post, v)
				}
			}
		}
	}
	termsSec = binary.LittleEndian.AppendUint32(termsSec, uint32(len(strs)))
	termsSec = binary.LittleEndian.AppendUint32(termsSec, uint32(len(post)))

	out := make([]byte, 0, headerSize+len(filesSec)+len(chunksSec)+len(termsSec)+len(strs)+len(post))
	out = append(out, segMagic...)
	out = binary.LittleEndian.AppendUint32(out, formatVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(files)))
	out = binary.LittleEndian.AppendUint32(out, uint32(nChunks))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(all)))
	for _, s := range lenSums {
		out = binary.LittleEndian.AppendUint64(out, s)
	}
	off := uint64(headerSize)
	for _, sec := range [][]byte{filesSec, chunksSec, termsSec, strs} {
		out = binary.LittleEndian.AppendUint64(out, off)
		off += uint64(len(sec))
	}
	out = binary.LittleEndian.AppendUint64(out, off)
	for _, sec := range [][]byte{filesSec, chunksSec, termsSec, strs, post} {
		out = append(out, sec...)
	}
	return out
}

// segment is a decoded view of an encoded segment (no copies).
type segment struct {
	id                      uint32
	data                    []byte
	nFiles, nChunks, nTerms int
	lenSums                 [nFields]uint64
	files, chunks, terms    []byte
	strs, post              []byte
	close                   func()
}

// openSegment checks a segment's structure, so that reading it later can
// never index out of range: offsets ordered and inside the data, every
// record's references inside their sections.
func openSegment(data []byte) (*segment, error) {
	if len(data) < headerSize || string(data[:8]) != segMagic {
		return nil, fmt.Errorf("%w: bad magic", errCorrupt)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != formatVersion {
		return nil, fmt.Errorf("%w: format %d, this aw reads %d", errCorrupt, v, formatVersion)
	}
	s := &segment{data: data}
	s.nFiles = int(le.Uint32(data[12:]))
	s.nChunks = int(le.Uint32(data[16:]))
	s.nTerms = int(le.Uint32(data[20:]))
	p := 24
	for k := range s.lenSums {
		s.lenSums[k] = le.Uint64(data[p:])
		p += 8
	}
	var offs [5]uint64
	for k := range offs {
		offs[k] = le.Uint64(data[p:])
		p += 8
	}
	prev := uint64(headerSize)
	for _, o := range offs {
		if o < prev || o > uint64(len(data)) {
			return nil, fmt.Errorf("%w: section offsets", errCorrupt)
		}
		prev = o
	}
	s.files, s.chunks, s.terms, s.strs, s.post = data[offs[0]:offs[1]], data[offs[1]:offs[2]], data[offs[2]:offs[3]], data[offs[3]:offs[4]], data[offs[4]:]
	if len(s.files) != s.nFiles*fileRecSize || len(s.chunks) != s.nChunks*chunkRecSize || len(s.terms) != (s.nTerms+1)*termRecSize {
		return nil, fmt.Errorf("%w: section sizes", errCorrupt)
	}
	ns := uint64(len(s.strs))
	for i := 0; i < s.nFiles; i++ {
		r := s.files[i*fileRecSize:]
		if uint64(le.Uint32(r))+uint64(le.Uint32(r[4:])) > ns || int(le.Uint32(r[8:])) > s.nChunks || int(r[12]) >= len(languages) {
			return nil, fmt.Errorf("%w: file record %d", errCorrupt, i)
		}
	}
	for i := 0; i < s.nChunks; i++ {
		r := s.chunks[i*chunkRecSize:]
		if int(le.Uint32(r)) >= s.nFiles || uint64(le.Uint32(r[12:]))+uint64(le.Uint16(r[16:])) > ns {
			return nil, fmt.Errorf("%w: chunk record %d", errCorrupt, i)
		}
	}
	var ps, pp uint32
	for i := 0; i <= s.nTerms; i++ {
		so, po := le.Uint32(s.terms[i*termRecSize:]), le.Uint32(s.terms[i*termRecSize+4:])
		if so < ps || po < pp || uint64(so) > ns || int(po) > len(s.post) {
			return nil, fmt.Errorf("%w: term record %d", errCorrupt, i)
		}
		ps, pp = so, po
	}
	return s, nil
}

func (s *segment) str(off, n uint32) string { return string(s.strs[off : off+n]) }

// term returns term i's text.
func (s *segment) term(i int) []byte {
	le := binary.LittleEndian
	return s.strs[le.Uint32(s.terms[i*termRecSize:]):le.Uint32(s.terms[(i+1)*termRecSize:])]
}

// lookup finds a term's postings and their count (nil when absent).
func (s *segment) lookup(t string) ([]byte, int) {
	i := sort.Search(s.nTerms, func(i int) bool { return string(s.term(i)) >= t })
	if i >= s.nTerms || string(s.term(i)) != t {
		return nil, 0
	}
	le := binary.LittleEndian
	list := s.post[le.Uint32(s.terms[i*termRecSize+4:]):le.Uint32(s.terms[(i+1)*termRecSize+4:])]
	df, n := binary.Uvarint(list)
	if n <= 0 || df > uint64(s.nChunks) {
		return nil, 0
	}
	return list[n:], int(df)
}

// eachPosting decodes a postings list; it stops with errCorrupt at the
// first inconsistency instead of reading out of range.
func (s *segment) eachPosting(list []byte, fn func(chunk uint32, tf *[nFields]uint8)) error {
	var c uint64
	first := true
	for len(list) > 0 {
		d, n := binary.Uvarint(list)
		if n <= 0 || len(list) < n+1 {
			return errCorrupt
		}
		if first {
			c, first = d, false
		} else {
			if d == 0 {
				return errCorrupt
			}
			c += d
		}
		mask := list[n]
		list = list[n+1:]
		var tf [nFields]uint8
		for k := 0; k < nFields; k++ {
			if mask&(1<<k) != 0 {
				if len(list) == 0 {
					return errCorrupt
				}
				tf[k] = list[0]
				list = list[1:]
			}
		}
		if c >= uint64(s.nChunks) {
			return errCorrupt
		}
		fn(uint32(c), &tf)
	}
	return nil
}

// chunkInfo is one chunk record.
type chunkInfo struct {
	file       int
	start, end int
	symbol     string
	lens       [nFields]uint16
}

func (s *segment) chunk(i uint32) chunkInfo {
	le := binary.LittleEndian
	r := s.chunks[int(i)*chunkRecSize:]
	ci := chunkInfo{file: int(le.Uint32(r)), start: int(le.Uint32(r[4:])), end: int(le.Uint32(r[8:]))}
	ci.symbol = s.str(le.Uint32(r[12:]), uint32(le.Uint16(r[16:])))
	for k := range ci.lens {
		ci.lens[k] = le.Uint16(r[18+2*k:])
	}
	return ci
}

func (s *segment) chunkLens(i uint32) (lens [nFields]uint16, file int) {
	le := binary.LittleEndian
	r := s.chunks[int(i)*chunkRecSize:]
	for k := range lens {
		lens[k] = le.Uint16(r[18+2*k:])
	}
	return lens, int(le.Uint32(r))
}

// filePath and fileLang read file record i.
func (s *segment) filePath(i int) string {
	le := binary.LittleEndian
	r := s.files[i*fileRecSize:]
	return s.str(le.Uint32(r), le.Uint32(r[4:]))
}

func (s *segment) fileLang(i int) uint8 { return s.files[i*fileRecSize+12] }

func (s *segment) fileFlags(i int) uint8 { return s.files[i*fileRecSize+13] }

// fileChunks is the number of chunks of file i.
func (s *segment) fileChunks(i int) int {
	le := binary.LittleEndian
	first := int(le.Uint32(s.files[i*fileRecSize+8:]))
	next := s.nChunks
	if i+1 < s.nFiles {
		next = int(le.Uint32(s.files[(i+1)*fileRecSize+8:]))
	}
	return max(next-first, 0)
}
