package syntax

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"sort"
)

// Go is parsed by go/parser, the compiler's own front end. go/ast keeps no
// node for punctuation, keywords or operators, so the tokens between a
// node's children become anonymous leaves (as tree-sitter has them): `a+b`
// and `a-b` differ, and `f($$$A)` sees the commas it skips.
var Go = &Language{
	ID:         "go",
	Extensions: []string{".go"},
	Scaffolds: []Scaffold{
		{Name: "statement", Prefix: "package p\nfunc _() {\n", Suffix: "\n}\n"},
		{Name: "expression", Prefix: "package p\nvar _ = ", Suffix: "\n"},
		{Name: "class member", Prefix: "package p\ntype _ struct {\n", Suffix: "\n}\n"},
		{Name: "declaration", Prefix: "package p\n", Suffix: "\n"},
	},
	Parse: parseGo,
}

func parseGo(src []byte) (*Tree, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil {
		return nil, false, nil
	}
	b := &goBuilder{src: src, base: fset.File(f.Pos()).Base()}
	b.scan()
	root := b.node(f, 0)
	// A file's range is the whole source (go/ast starts it at `package`).
	root.Start, root.End = 0, len(src)
	return &Tree{Root: root, Src: src}, err == nil, nil
}

type goBuilder struct {
	src  []byte
	base int
	kids []ast.Node
	toks []goToken // every token of the file, in order
}

type goToken struct {
	start int
	text  string
}

// scan tokenises the file once (comments and the semicolons the scanner
// inserts at line ends skipped); gaps between children take theirs from it.
func (b *goBuilder) scan() {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(b.src))
	sc.Init(file, b.src, func(token.Position, string) {}, 0)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			return
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		text := tok.String()
		if lit != "" {
			text = lit
		}
		b.toks = append(b.toks, goToken{file.Offset(pos), text})
	}
}

func (b *goBuilder) off(p token.Pos) int {
	o := int(p) - b.base
	return max(0, min(o, len(b.src)))
}

func goKind(n ast.Node) string { return reflect.TypeOf(n).Elem().Name() }

// node builds n; from clamps its start: a FuncDecl's FuncType starts at
// `func`, before the receiver and name that are its siblings.
func (b *goBuilder) node(n ast.Node, from int) *Node {
	out := &Node{Kind: goKind(n), Named: true, Start: max(from, b.off(n.Pos())), End: b.off(n.End())}
	start := len(b.kids)
	ast.Inspect(n, func(c ast.Node) bool {
		if c == n {
			return true
		}
		if c != nil {
			b.kids = append(b.kids, c)
		}
		return false
	})
	kids := append([]ast.Node(nil), b.kids[start:]...)
	b.kids = b.kids[:start]
	at := out.Start
	for _, k := range kids {
		if _, isComment := k.(*ast.CommentGroup); isComment {
			continue
		}
		c := b.node(k, at)
		if c.End > out.End || c.Start > c.End {
			// An implicit node (a zero value, a position go/ast
			// synthesised): keep it without tokenising around it.
			out.Children = append(out.Children, c)
			continue
		}
		out.Children = b.tokens(out.Children, at, c.Start)
		out.Children = append(out.Children, c)
		at = c.End
	}
	if len(out.Children) > 0 {
		out.Children = b.tokens(out.Children, at, out.End)
	} else if !isGoLeaf(n) {
		out.Children = b.tokens(nil, out.Start, out.End)
	}
	return out
}

// isGoLeaf: nodes whose text is their identity.
func isGoLeaf(n ast.Node) bool {
	switch n.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	}
	return false
}

// tokens appends the tokens that lie within src[from:to].
func (b *goBuilder) tokens(out []*Node, from, to int) []*Node {
	if from >= to || allSpace(b.src[from:to]) {
		return out
	}
	i := sort.Search(len(b.toks), func(i int) bool { return b.toks[i].start >= from })
	for ; i < len(b.toks) && b.toks[i].start+len(b.toks[i].text) <= to; i++ {
		t := b.toks[i]
		out = append(out, &Node{Kind: t.text, Start: t.start, End: t.start + len(t.text)})
	}
	return out
}

func allSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}
