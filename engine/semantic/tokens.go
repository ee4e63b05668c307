package semantic

import (
	"strings"
	"sync"
)

// Terms: identifiers are split where code joins words (camelCase,
// snake_case, letter–digit boundaries), lower-cased and stemmed with a
// light suffix stripper, so "ParseDuration", "parse_duration" and "parsing
// durations" meet on the same terms. The whole identifier is kept as well
// in the symbol field, so a query naming an identifier exactly ranks it
// first.

// fields of a chunk, in posting order.
const (
	fSym  = iota // the declared name (and its receiver)
	fPath        // the file's path
	fDoc         // the doc comment above the declaration
	fBody        // everything else: code, strings, inner comments
	nFields
)

// splitIdent calls emit for each word of an identifier-like run of ASCII
// letters, digits and underscores, in lower case: "HTTPServer" → http,
// server; "parse_RFC3339" → parse, rfc, 3339. buf is scratch space.
func splitIdent(run []byte, buf []byte, emit func(word []byte)) []byte {
	start := 0
	n := len(run)
	flush := func(end int) {
		if end > start {
			buf = buf[:0]
			for _, c := range run[start:end] {
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
			}
			emit(buf)
		}
	}
	for i := 0; i < n; i++ {
		c := run[i]
		if c == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		p := run[i-1]
		switch {
		case isUpper(c) && isLower(p):
			// parseDuration: a boundary before D
		case isUpper(c) && isUpper(p) && i+1 < n && isLower(run[i+1]):
			// HTTPServer: a boundary before S
		case isDigit(c) != isDigit(p) && p != '_':
			// RFC3339, utf8: letters and digits apart
		default:
			continue
		}
		flush(i)
		start = i
	}
	flush(n)
	return buf
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWord(c byte) bool  { return isUpper(c) || isLower(c) || isDigit(c) || c == '_' }

// scanRuns calls fn for each identifier-like run of text.
func scanRuns(text []byte, fn func(run []byte)) {
	i := 0
	for i < len(text) {
		if !isWord(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isWord(text[j]) {
			j++
		}
		if j-i <= 64 { // longer runs are hashes, base64 or tables, not words
			fn(text[i:j])
		}
		i = j
	}
}

// stem strips common English inflections in place and returns the stem:
// parses/parsed/parsing/parse → pars, timestamps → timestamp,
// connection/connections → connect, allocate/allocation → alloc. Digits
// and short words are kept.
func stem(w []byte) []byte {
	n := len(w)
	if n <= 3 || isDigit(w[n-1]) {
		return w
	}
	has := func(suf string, keep int) bool {
		return n-len(suf) >= keep && string(w[n-len(suf):]) == suf
	}
	switch {
	case has("ations", 4):
		n -= 6
	case has("ation", 4):
		n -= 5
	case has("ated", 4), has("ates", 4):
		n -= 4
	case has("ate", 4):
		n -= 3
	case has("sses", 2):
		n -= 2
	case has("ies", 2):
		n -= 2
		w[n-1] = 'y'
	case has("ions", 3) && (w[n-5] == 't' || w[n-5] == 's'):
		n -= 4
	case has("ion", 3) && (w[n-4] == 't' || w[n-4] == 's'):
		n -= 3
	case has("ings", 3):
		n -= 4
	case has("ing", 3):
		n -= 3
	case has("ers", 3):
		n-- // parsers → parser
	case has("ed", 3) && w[n-3] != 'e':
		n -= 2
	case has("es", 3) && (w[n-3] == 's' || w[n-3] == 'x' || w[n-3] == 'z' || w[n-3] == 'h'):
		n -= 2
	case w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		n--
	}
	// Drop a final e and one of a doubled consonant so that parse/parsing,
	// encode/encoding and wrapped/wrap agree.
	if n > 3 && w[n-1] == 'e' {
		n--
	}
	if n > 3 && w[n-1] == w[n-2] && w[n-1] != 's' && w[n-1] != 'l' && !isVowel(w[n-1]) {
		n--
	}
	return w[:n]
}

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

// stemString is stem for a string.
func stemString(s string) string { return string(stem([]byte(s))) }

// stopWords are left out of queries and bodies (matched before stemming):
// the English function words questions are made of, and keywords every
// chunk of a language has.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an and are as at be by can do does did for from how i if in into is it its of on or that the this to
		what when where which who why with there their them they we you our was were been being has have had
		should would could will all any some so not which whose my me us
		code find finds implement implements implemented implementation function functions func method methods
		get gets done happen happens somewhere located defined decide decides use used uses
		return else var const type struct nil package import range break continue case switch default go
		defer interface chan select goto fallthrough let def self none true false null undefined new class
		export public private static void`) {
		m[w] = true
	}
	return m
})

// abbreviations map a word of a question to the shorter forms code uses
// for it; a query term also searches its forms, at a lower weight. Both
// sides are stemmed on first use.
var abbreviations = sync.OnceValue(func() map[string][]string {
	raw := map[string][]string{
		"directory": {"dir"}, "configuration": {"config", "conf", "cfg"}, "message": {"msg"},
		"buffer": {"buf"}, "request": {"req"}, "response": {"resp"}, "error": {"err"},
		"initialize": {"init"}, "temporary": {"tmp", "temp"}, "number": {"num"}, "length": {"len"},
		"allocate": {"alloc"}, "argument": {"arg"}, "parameter": {"param"}, "connection": {"conn"},
		"context": {"ctx"}, "descriptor": {"fd"}, "pointer": {"ptr"}, "reference": {"ref"},
		"environment": {"env"}, "execute": {"exec"}, "synchronize": {"sync"}, "expression": {"expr"},
		"regular": {"regexp"}, "address": {"addr"}, "certificate": {"cert"}, "signature": {"sig"},
		"package": {"pkg"}, "library": {"lib"}, "authentication": {"auth"}, "authorization": {"auth"},
		"compare": {"cmp"}, "calculate": {"calc"}, "command": {"cmd"}, "document": {"doc"},
		"source": {"src"}, "destination": {"dst"}, "value": {"val"}, "variable": {"var"},
		"operation": {"op"}, "specification": {"spec"}, "information": {"info"}, "maximum": {"max"},
		"minimum": {"min"}, "previous": {"prev"}, "index": {"idx"}, "generate": {"gen"},
		"channel": {"chan"}, "garbage": {"gc"}, "decompress": {"inflate"}, "compress": {"deflate"},
		"symbolic": {"symlink"}, "checksum": {"sum", "crc"}, "hash": {"sum"}, "unicode": {"utf8", "rune"},
		"random": {"rand"}, "cryptographic": {"crypto"}, "database": {"sql", "db"}, "character": {"char", "rune"},
		"sequence": {"seq"}, "system": {"sys"}, "object": {"obj"}, "position": {"pos"}, "statistics": {"stats"},
		"identifier": {"id"}, "timestamp": {"time"}, "millisecond": {"ms"}, "nanosecond": {"ns"},
		"current": {"cur"}, "original": {"orig"}, "window": {"win"}, "utility": {"util"},
	}
	m := map[string][]string{}
	for k, vs := range raw {
		key := stemString(k)
		for _, v := range vs {
			if sv := stemString(v); sv != key {
				m[key] = append(m[key], sv)
			}
		}
	}
	return m
})
