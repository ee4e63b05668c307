package semantic

import (
	"bytes"
	"strings"
)

// analyzer turns files into chunks of term frequencies. Each walk worker
// has its own (terms are numbered in its own dictionary, merged when the
// segment is written), so analysis needs no lock.
type analyzer struct {
	dict map[string]uint32
	// words maps a lower-case word as written to its term (-1: a stop
	// word), so each token costs one lookup and stemming runs once per
	// distinct word.
	words map[string]int32
	terms []string
	// slot[t] is where term t sits in the current chunk's list, valid
	// when stamp[t] is the current chunk's stamp.
	slot  []int32
	stamp []uint32
	cur   uint32
	buf   []byte
	list  []posting
}

// posting is one term's frequency in each field of one chunk (clamped to
// 255: the saturation of BM25 makes larger counts matter little).
type posting struct {
	term uint32
	tf   [nFields]uint8
}

// analyzedChunk is a chunk ready to be written.
type analyzedChunk struct {
	start, end uint32
	symbol     string
	lens       [nFields]uint16
	postings   []posting
}

// analyzedFile is a file's chunks and identity.
type analyzedFile struct {
	entry  fileEntry
	lang   uint8
	flags  uint8 // fileGenerated, ...
	chunks []analyzedChunk
	owner  *analyzer // whose dictionary the postings' terms are in
}

func newAnalyzer() *analyzer {
	return &analyzer{dict: make(map[string]uint32, 1<<14), words: make(map[string]int32, 1<<15)}
}

// termID numbers a word (already lower-cased and stemmed).
func (a *analyzer) termID(w []byte) uint32 {
	if id, ok := a.dict[string(w)]; ok {
		return id
	}
	id := uint32(len(a.terms))
	s := string(w)
	a.dict[s] = id
	a.terms = append(a.terms, s)
	a.slot = append(a.slot, 0)
	a.stamp = append(a.stamp, 0)
	return id
}

func (a *analyzer) add(field int, w []byte, lens *[nFields]uint16) {
	a.addID(field, a.termID(w), lens)
}

// addWord adds a lower-case word as written (stemmed, unless a stop word).
func (a *analyzer) addWord(field int, w []byte, lens *[nFields]uint16) {
	id, ok := a.words[string(w)]
	if !ok {
		id = -1
		if t, ok := term(w); ok {
			id = int32(a.termID(t))
		}
		a.words[string(w)] = id
	}
	if id >= 0 {
		a.addID(field, uint32(id), lens)
	}
}

func (a *analyzer) addID(field int, id uint32, lens *[nFields]uint16) {
	if a.stamp[id] != a.cur {
		a.stamp[id] = a.cur
		a.slot[id] = int32(len(a.list))
		a.list = append(a.list, posting{term: id})
	}
	p := &a.list[a.slot[id]]
	if p.tf[field] < 255 {
		p.tf[field]++
	}
	if lens[field] < 65535 {
		lens[field]++
	}
}

// text feeds every term of text into field.
func (a *analyzer) text(field int, text []byte, lens *[nFields]uint16, compounds bool) {
	scanRuns(text, func(run []byte) {
		parts := 0
		a.buf = splitIdent(run, a.buf, func(w []byte) {
			parts++
			a.addWord(field, w, lens)
		})
		if compounds && parts > 1 {
			w := bytes.ToLower(run)
			w = bytes.ReplaceAll(w, []byte("_"), nil)
			a.add(field, w, lens)
		}
	})
}

// term is the index form of a lower-case word: stemmed, or false for a
// stop word or a single character.
func term(w []byte) ([]byte, bool) {
	if len(w) < 2 || stopWords()[string(w)] {
		return nil, false
	}
	return stem(w), true
}

// file analyzes one file's content.
func (a *analyzer) file(e fileEntry, content []byte) analyzedFile {
	lang := langOf(e.path)
	out := analyzedFile{entry: e, lang: lang, owner: a, flags: fileFlags(e.path, content)}
	pathText := []byte(strings.TrimSuffix(e.path, extOf(e.path)))
	for _, c := range chunkFile(lang, content) {
		a.cur++
		if a.cur == 0 { // the stamp wrapped: forget every old one
			clear(a.stamp)
			a.cur = 1
		}
		a.list = a.list[:0]
		ac := analyzedChunk{start: uint32(c.start), end: uint32(c.end), symbol: c.symbol}
		a.text(fSym, []byte(c.symbol), &ac.lens, true)
		a.text(fPath, pathText, &ac.lens, false)
		if c.doc[1] > c.doc[0] {
			a.text(fDoc, content[c.doc[0]:c.doc[1]], &ac.lens, false)
		}
		a.text(fBody, content[c.body[0]:c.body[1]], &ac.lens, false)
		ac.postings = append([]posting(nil), a.list...)
		out.chunks = append(out.chunks, ac)
	}
	return out
}

func extOf(p string) string {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.LastIndexByte(p, '/') > i {
		return ""
	}
	return p[i:]
}

// File flags lower a file's chunks in the ranking: a question is usually
// about the code a person wrote and maintains, not its tests, generated
// copies, vendored copies or one platform's variant.
const (
	fileTest      = 1 << iota // _test files, test and testdata directories
	fileGenerated             // "Code generated ... DO NOT EDIT." near the top
	fileVendored              // under a vendor directory
	filePlatform              // a Go file for one GOOS or GOARCH (name_linux.go)
)

// rankFactor is the multiplier of a file's scores.
func rankFactor(flags uint8) float64 {
	f := 1.0
	if flags&fileTest != 0 {
		f *= 0.6
	}
	if flags&fileGenerated != 0 {
		f *= 0.6
	}
	if flags&fileVendored != 0 {
		f *= 0.75
	}
	if flags&filePlatform != 0 {
		f *= 0.8
	}
	return f
}

func fileFlags(path string, content []byte) uint8 {
	var f uint8
	if isTestPath(path) {
		f |= fileTest
	}
	head := content[:min(len(content), 2048)]
	if i := bytes.Index(head, []byte("Code generated")); i >= 0 && bytes.Contains(head[i:], []byte("DO NOT EDIT")) {
		f |= fileGenerated
	}
	if strings.HasPrefix(path, "vendor/") || strings.Contains(path, "/vendor/") {
		f |= fileVendored
	}
	if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".s") {
		name := path[strings.LastIndexByte(path, '/')+1:]
		name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".go"), ".s"), "_test")
		parts := strings.Split(name, "_")
		for _, p := range parts[1:] {
			if platforms[p] {
				f |= filePlatform
				break
			}
		}
	}
	return f
}

// platforms are Go's GOOS and GOARCH values (file name suffixes that
// restrict a file to one platform).
var platforms = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true,
	"ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true,
	"wasip1": true, "windows": true, "zos": true, "386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true,
	"mips": true, "mipsle": true, "mips64": true, "mips64le": true, "ppc64": true, "ppc64le": true, "riscv64": true,
	"s390x": true, "wasm": true, "sparc64": true,
}
