package inspect

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// maxPatternLen bounds a search pattern. RE2 has no catastrophic
// backtracking, so the bound is on compile cost, not on matching.
const maxPatternLen = 1000

// matcher finds matching lines. A required literal (every match contains
// it) is looked for first with a fast byte search, so files without it are
// never given to the regex, and the regex only ever runs on the lines
// around a literal hit.
//
// A regex with no required literal may still start with bytes of known
// classes ("[0-9]{3}[a-f]" starts with three digits and a-f): lead scans
// for a run of such bytes, which is many times faster than the regex
// engine trying every position, and the regex runs only on those lines.
type matcher struct {
	re      *regexp.Regexp // nil when lit alone decides
	lit     []byte         // required literal; lower-cased when fold
	fold    bool           // lit is matched ASCII case-insensitively
	pureLit bool           // a line matches iff it contains lit
	lead    byteClasses    // with no lit: the classes of every match's first bytes
}

// prefiltered reports whether index finds candidate positions, so the regex
// need only run on the lines holding them.
func (m *matcher) prefiltered() bool { return len(m.lit) > 0 || len(m.lead) > 0 }

func compileMatcher(pattern string, fixed, ignoreCase bool) (*matcher, error) {
	if pattern == "" {
		return nil, envelope.Errorf(envelope.InvalidInput, "search needs a pattern: `aw inspect search PATTERN [PATH]`").With("field", "pattern")
	}
	if len(pattern) > maxPatternLen {
		return nil, envelope.Errorf(envelope.InvalidInput,
			"the pattern is %d characters long; patterns over %d characters are refused as unsafe: search for a shorter, distinctive part of it", len(pattern), maxPatternLen).With("reason", "unsafe-pattern")
	}
	if strings.ContainsRune(pattern, '\n') {
		return nil, envelope.Errorf(envelope.InvalidInput, "the pattern contains a newline, but search matches one line at a time: search for one line of it").With("field", "pattern")
	}
	if fixed {
		m := &matcher{lit: []byte(pattern), pureLit: true}
		if ignoreCase {
			if isASCII(pattern) {
				m.lit, m.fold = []byte(strings.ToLower(pattern)), true
			} else {
				m.pureLit = false
				m.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(pattern))
				m.lit = foldSafe([]byte(strings.ToLower(pattern)))
				m.fold = true
			}
		}
		return m, nil
	}
	expr := "(?m)" + pattern
	if ignoreCase {
		expr = "(?mi)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		msg := err.Error()
		if se, ok := err.(*syntax.Error); ok {
			msg = se.Code.String() + " at `" + se.Expr + "`"
		}
		return nil, envelope.Errorf(envelope.InvalidInput,
			"the pattern is not a valid RE2 regular expression: %s; fix it, or pass --fixed to search for the text literally", msg).With("reason", "bad-pattern").With("field", "pattern")
	}
	m := &matcher{re: re}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return m, nil
	}
	parsed = parsed.Simplify()
	lit, fold := requiredLiteral(parsed)
	if fold {
		lit = strings.ToLower(lit)
		m.lit, m.fold = foldSafe([]byte(lit)), true
	} else {
		m.lit = []byte(lit)
	}
	// A pattern that is one plain literal needs no regex at all.
	if parsed.Op == syntax.OpLiteral && !fold && len(m.lit) > 0 {
		m.pureLit, m.re = true, nil
	}
	if len(m.lit) == 0 {
		leadClasses(parsed, &m.lead)
	}
	return m, nil
}

// byteClasses are byte sets that consecutive bytes must fall in, one set per
// byte.
type byteClasses [][256]bool

// maxLead bounds the lead: a few bytes already make a rare run.
const maxLead = 8

// leadClasses appends the classes of the first bytes of every match of re
// and reports whether re always matches exactly those bytes (so the classes
// of what follows it may be appended too). Line and word assertions add no
// byte; text anchors (\A, \z), anything of varying length and non-ASCII
// end the lead.
func leadClasses(re *syntax.Regexp, out *byteClasses) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			// Under case folding k and s also match multi-byte runes
			// (U+212A, U+017F), like every non-ASCII rune: stop there.
			if len(*out) == maxLead || r >= utf8.RuneSelf || fold && strings.ContainsRune("kKsS", r) {
				return false
			}
			var c [256]bool
			c[r] = true
			if fold {
				c[unicode.ToLower(r)], c[unicode.ToUpper(r)] = true, true
			}
			*out = append(*out, c)
		}
		return true
	case syntax.OpCharClass:
		if len(*out) == maxLead {
			return false
		}
		var c [256]bool
		for i := 0; i < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf {
				return false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				c[r] = true
			}
		}
		*out = append(*out, c)
		return true
	case syntax.OpCapture:
		return leadClasses(re.Sub[0], out)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !leadClasses(sub, out) {
				return false
			}
		}
		return true
	case syntax.OpPlus:
		leadClasses(re.Sub[0], out) // one copy at least; then the length varies
		return false
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !leadClasses(re.Sub[0], out) {
				return false
			}
		}
		return re.Min == re.Max
	}
	return false
}

// index finds the first position in b where a run of bytes in the classes
// starts.
func (l byteClasses) index(b []byte) int {
	first := &l[0]
	for i := 0; i+len(l) <= len(b); i++ {
		if !first[b[i]] {
			continue
		}
		j := 1
		for j < len(l) && l[j][b[i+j]] {
			j++
		}
		if j == len(l) {
			return i
		}
	}
	return -1
}

// requiredLiteral returns the longest literal string every match of re
// must contain, and whether it is case-folded.
func requiredLiteral(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		consider := func(s string, fold bool) {
			if len(s) > len(best) || (len(s) == len(best) && bestFold && !fold) {
				best, bestFold = s, fold
			}
		}
		run, runFold := "", false
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				f := sub.Flags&syntax.FoldCase != 0
				if run != "" && f != runFold {
					consider(run, runFold)
					run = ""
				}
				run, runFold = run+string(sub.Rune), f
				continue
			}
			if run != "" {
				consider(run, runFold)
				run = ""
			}
			consider(requiredLiteral(sub))
		}
		if run != "" {
			consider(run, runFold)
		}
		return best, bestFold
	}
	return "", false
}

// foldSafe keeps the longest piece of a lower-cased literal that ASCII case
// folding handles exactly: Unicode folds k to U+212A and s to U+017F, and
// non-ASCII letters may change length, so those break the piece.
func foldSafe(lit []byte) []byte {
	var best []byte
	start := 0
	for i := 0; i <= len(lit); i++ {
		if i == len(lit) || lit[i] >= utf8.RuneSelf || lit[i] == 'k' || lit[i] == 's' {
			if i-start > len(best) {
				best = lit[start:i]
			}
			start = i + 1
		}
	}
	return best
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == 'k' || s[i] == 'K' || s[i] == 's' || s[i] == 'S' {
			return false
		}
	}
	return true
}

// index finds the next occurrence of the literal, or of the lead, in b.
func (m *matcher) index(b []byte) int {
	switch {
	case len(m.lit) == 0:
		return m.lead.index(b)
	case !m.fold:
		return bytes.Index(b, m.lit)
	}
	return indexFoldASCII(b, m.lit)
}

// indexFoldASCII finds lower-cased ASCII needle in b ignoring ASCII case. It
// scans for the needle's least common byte (both cases), then compares.
func indexFoldASCII(b, needle []byte) int {
	if len(needle) == 0 {
		return 0
	}
	r := rarest(needle)
	lo := needle[r]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	nextLo, nextUp := -2, -2 // -2: not searched yet
	off := r
	for off < len(b) {
		if nextLo != -1 && nextLo < off {
			if i := bytes.IndexByte(b[off:], lo); i >= 0 {
				nextLo = off + i
			} else {
				nextLo = -1
			}
		}
		if up != lo && nextUp != -1 && nextUp < off {
			if i := bytes.IndexByte(b[off:], up); i >= 0 {
				nextUp = off + i
			} else {
				nextUp = -1
			}
		}
		p := nextLo
		if up != lo && nextUp >= 0 && (p < 0 || nextUp < p) {
			p = nextUp
		}
		if p < 0 {
			return -1
		}
		start := p - r
		if start+len(needle) <= len(b) && equalFoldASCII(b[start:start+len(needle)], needle) {
			return start
		}
		off = p + 1
	}
	return -1
}

func equalFoldASCII(b, lower []byte) bool {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// rarest picks the index of the needle byte least common in source text.
func rarest(needle []byte) int {
	best, score := 0, 1<<30
	for i, c := range needle {
		s := byteRank(c)
		if s < score {
			best, score = i, s
		}
	}
	return best
}

// byteRank is a rough frequency of a byte in source code and prose
// (lower is rarer).
func byteRank(c byte) int {
	switch {
	case c == ' ' || c == 'e' || c == 't':
		return 100
	case strings.IndexByte("aoinrslcdu\n\t", c) >= 0:
		return 80
	case c >= 'a' && c <= 'z':
		return 50
	case strings.IndexByte("()[]{}.,;:=\"_/-*", c) >= 0:
		return 40
	case c >= '0' && c <= '9':
		return 30
	case c >= 'A' && c <= 'Z':
		return 20
	}
	return 10
}
