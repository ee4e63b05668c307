// Package syntax matches code by shape. Every language is parsed into the
// same small tree (Node: a kind, whether it is named, a byte range and its
// children), and one matcher works over that tree for all of them: Go
// through go/ast, the other languages through tree-sitter grammars compiled
// to WebAssembly and run by a pure-Go runtime, so aw stays one static
// CGO-free binary.
//
// A pattern is parsed by the same parser as the files, inside the first
// scaffold of the language's ladder (statement, expression, class member,
// declaration) that accepts it without a syntax error. Metavariables are
// rewritten to identifiers the grammar accepts (an "expando" letter, µ,
// stands for $) before parsing, the way ast-grep does it. Comments never
// become nodes and string literals are leaves, so a pattern never matches
// inside either.
package syntax

// Node is one node of a parsed file. Anonymous nodes are a grammar's
// tokens (punctuation, keywords, operators); named nodes are the rest.
type Node struct {
	Kind       string
	Named      bool
	sym        uint16 // the grammar's number for Kind (tree-sitter's trees)
	Start, End int    // byte offsets into the source
	Children   []*Node
}

// Leaf reports whether the node has no children; leaves compare by text.
func (n *Node) Leaf() bool { return len(n.Children) == 0 }

// Tree is a parsed source.
type Tree struct {
	Root *Node
	Src  []byte
}

// Text is the source a node covers.
func (t *Tree) Text(n *Node) string { return string(t.Src[n.Start:n.End]) }
