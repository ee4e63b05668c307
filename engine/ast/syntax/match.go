package syntax

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Scaffold is one rung of a language's ladder: the pattern is parsed
// between Prefix and Suffix.
type Scaffold struct {
	Name           string // statement, expression, class member, declaration
	Prefix, Suffix string
	Indent         string // put before every line after the first (Python's blocks)
}

// Language is one parser and its pattern ladder.
type Language struct {
	ID         string
	Aliases    []string
	Extensions []string // ".go"
	// Terminator ends a statement (C, Java): a pattern's metavariable
	// standing alone before a `}` is read as a statement with it.
	Terminator string
	Scaffolds  []Scaffold
	// Parse parses a source; ok is false when it has a syntax error.
	Parse func(src []byte) (t *Tree, ok bool, err error)
}

// expando stands for $ in a pattern: a letter every grammar here accepts in
// an identifier, so `$X` parses as the identifier `µX`.
const expando = "µ"

// Pattern is a compiled pattern.
type Pattern struct {
	Lang     *Language
	Source   string
	Scaffold string   // the rung that accepted it
	Literals []string // texts every match contains (the prefilter)
	root     *Node
	tree     *Tree
	metas    map[*Node]meta
	// terminator, when the language has one, may follow a metavariable
	// standing for a statement.
	terminator string
}

// UnparseableError says no scaffold accepted the pattern.
type UnparseableError struct {
	Lang  string
	Tried []string
}

func (e *UnparseableError) Error() string {
	return fmt.Sprintf("the pattern does not parse as %s in any context tried (%s)", e.Lang, strings.Join(e.Tried, ", "))
}

// Compile parses src through lang's scaffold ladder.
func Compile(lang *Language, src string) (*Pattern, error) {
	body := strings.TrimSpace(expand(src))
	if body == "" {
		return nil, fmt.Errorf("the pattern is empty")
	}
	var tried []string
	// Where the language ends statements with a terminator, a pattern
	// written without it is tried with it too: after a metavariable that
	// stands alone before a `}` (a run of statements), then also at the
	// end (the terminator stays outside the pattern's root).
	type variant struct {
		body string
		tail int // bytes added at the end, not part of the pattern
	}
	variants := []variant{{body, 0}}
	if t := lang.Terminator; t != "" {
		inner := loneMeta().ReplaceAllString(body, "${1}"+t+"${2}")
		if inner != body {
			variants = append(variants, variant{inner, 0})
		}
		if !strings.HasSuffix(inner, t) {
			variants = append(variants, variant{inner + t, len(t)})
		}
	}
	for _, s := range lang.Scaffolds {
		tried = append(tried, s.Name)
		for _, v := range variants {
			if p, err := compileIn(lang, src, s, v.body, v.tail); p != nil || err != nil {
				return p, err
			}
		}
	}
	return nil, &UnparseableError{Lang: lang.ID, Tried: tried}
}

// loneMeta is a metavariable alone before a closing brace (or the end),
// compiled on first use so other commands do not pay for it at start-up.
var loneMeta = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`((?:` + expando + `)+[A-Z_0-9]*)(\s*\})`)
})

// compileIn parses body in one scaffold; nil when it does not parse there.
func compileIn(lang *Language, src string, s Scaffold, body string, tail int) (*Pattern, error) {
	{
		inner := body
		if s.Indent != "" {
			inner = strings.ReplaceAll(body, "\n", "\n"+s.Indent)
		}
		text := s.Prefix + inner + s.Suffix
		t, ok, err := lang.Parse([]byte(text))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
		root := cover(t.Root, len(s.Prefix), len(s.Prefix)+len(inner)-tail)
		if root == nil {
			return nil, nil
		}
		p := &Pattern{Lang: lang, Source: src, Scaffold: s.Name, root: root, tree: t, metas: map[*Node]meta{}, terminator: lang.Terminator}
		p.findMetas(root)
		p.Literals = p.literals()
		return p, nil
	}
}

// expand rewrites $NAME, $$$NAME, $$$ and $_ to expando identifiers.
func expand(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if src[i] != '$' {
			b.WriteByte(src[i])
			continue
		}
		j := i
		for j < len(src) && src[j] == '$' && j-i < 3 {
			j++
		}
		k := j
		for k < len(src) && (src[k] == '_' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= '0' && src[k] <= '9' && k > j) {
			k++
		}
		dollars := j - i
		if (dollars != 1 && dollars != 3) || (k == j && dollars == 1) {
			b.WriteString(src[i:j])
			i = j - 1
			continue
		}
		b.WriteString(strings.Repeat(expando, dollars))
		b.WriteString(src[j:k])
		i = k - 1
	}
	return b.String()
}

// cover finds the deepest node spanning exactly [start, end): the pattern
// itself, without the statement or declaration the scaffold wrapped it in.
func cover(n *Node, start, end int) *Node {
	var best *Node
	for n != nil {
		if n.Start == start && n.End == end {
			best = n
		}
		var next *Node
		for _, c := range n.Children {
			if c.Start <= start && c.End >= end {
				next = c
				break
			}
		}
		n = next
	}
	return best
}

// meta is a metavariable: name "" for $_ and $$$, multi for $$$.
type meta struct {
	name  string
	multi bool
}

// findMetas records which pattern nodes are metavariables: the outermost
// node whose whole text is one.
func (p *Pattern) findMetas(n *Node) {
	if mv, ok := p.parseMeta(n); ok {
		p.metas[n] = mv
		return
	}
	for _, c := range n.Children {
		p.findMetas(c)
	}
}

func (p *Pattern) metaOf(n *Node) (meta, bool) {
	mv, ok := p.metas[n]
	return mv, ok
}

// parseMeta reports whether pattern node n's text is a metavariable.
func (p *Pattern) parseMeta(n *Node) (meta, bool) {
	t := p.tree.Text(n)
	if p.terminator != "" {
		t = strings.TrimSuffix(t, p.terminator)
	}
	if !strings.HasPrefix(t, expando) {
		return meta{}, false
	}
	if strings.HasPrefix(t, expando+expando+expando) {
		name := t[3*len(expando):]
		return meta{name: name, multi: true}, validName(name, true)
	}
	name := t[len(expando):]
	if name == "_" {
		return meta{}, true
	}
	return meta{name: name}, validName(name, false)
}

func validName(s string, emptyOK bool) bool {
	if s == "" {
		return emptyOK
	}
	for _, r := range s {
		if r != '_' && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// literals are the pattern's token texts outside metavariables, longest
// first: a file lacking the first cannot match.
func (p *Pattern) literals() []string {
	seen := map[string]bool{}
	var out []string
	var walk func(n *Node)
	walk = func(n *Node) {
		if _, ok := p.metaOf(n); ok {
			return
		}
		if n.Leaf() {
			if s := p.tree.Text(n); s != "" && !seen[s] && utf8.ValidString(s) {
				seen[s] = true
				out = append(out, s)
			}
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(p.root)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Match is one match: the node and each named metavariable's capture.
type Match struct {
	Node     *Node
	Captures map[string]string
	Order    []string // capture names in pattern order
}

type binding struct {
	name, text string
}

type matcher struct {
	p     *Pattern
	t     *Tree
	binds []binding
}

func (m *matcher) bound(name string) (string, bool) {
	for _, b := range m.binds {
		if b.name == name {
			return b.text, true
		}
	}
	return "", false
}

// bind records a capture, or checks a repeated metavariable captured the
// same text.
func (m *matcher) bind(name, text string) bool {
	if name == "" {
		return true
	}
	if old, ok := m.bound(name); ok {
		return old == text
	}
	m.binds = append(m.binds, binding{name, text})
	return true
}

func (m *matcher) node(p, t *Node) bool {
	if mv, ok := m.p.metaOf(p); ok && !mv.multi {
		return t.Named && m.bind(mv.name, m.t.Text(t))
	}
	if p.Kind != t.Kind || p.Leaf() != t.Leaf() {
		return false
	}
	if p.Leaf() {
		return string(m.p.tree.Src[p.Start:p.End]) == string(m.t.Src[t.Start:t.End])
	}
	return m.seq(p.Children, t.Children)
}

func (m *matcher) seq(ps, ts []*Node) bool {
	if len(ps) == 0 {
		for _, t := range ts {
			if t.Named {
				return false
			}
		}
		return true
	}
	mark := len(m.binds)
	if mv, ok := m.p.metaOf(ps[0]); ok && mv.multi {
		for k := 0; k <= len(ts); k++ {
			text := ""
			if k > 0 {
				text = string(m.t.Src[ts[0].Start:ts[k-1].End])
			}
			if m.bind(mv.name, text) && m.seq(ps[1:], ts[k:]) {
				return true
			}
			m.binds = m.binds[:mark]
		}
		return false
	}
	if len(ts) > 0 && m.node(ps[0], ts[0]) && m.seq(ps[1:], ts[1:]) {
		return true
	}
	m.binds = m.binds[:mark]
	// A token of the file the pattern does not have may be skipped (a
	// statement's `;` the pattern left out), as ast-grep's default
	// strictness does; named nodes never are.
	if len(ts) > 0 && !ts[0].Named {
		return m.seq(ps, ts[1:])
	}
	return false
}

// Find returns every node of t the pattern matches, outermost first in
// source order; nested matches are included unless outermost is set (a
// rewrite replaces only the outermost).
func (p *Pattern) Find(t *Tree, outermost bool) []Match {
	var out []Match
	m := &matcher{p: p, t: t}
	var walk func(n *Node)
	walk = func(n *Node) {
		m.binds = m.binds[:0]
		if m.matchRoot(n) {
			mt := Match{Node: n, Captures: map[string]string{}}
			for _, b := range m.binds {
				mt.Captures[b.name] = b.text
				mt.Order = append(mt.Order, b.name)
			}
			out = append(out, mt)
			if outermost {
				return
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(t.Root)
	return out
}

// matchRoot matches the pattern's root at n. A root that is a $$$ run
// matches one node.
func (m *matcher) matchRoot(n *Node) bool {
	if mv, ok := m.p.metaOf(m.p.root); ok && mv.multi {
		return n.Named && m.bind(mv.name, m.t.Text(n))
	}
	return m.node(m.p.root, n)
}
