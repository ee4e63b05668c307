package syntax

import (
	_ "embed"
)

var (
	//go:embed grammars/javascript.wasm
	javascriptWasm []byte
	//go:embed grammars/typescript.wasm
	typescriptWasm []byte
	//go:embed grammars/tsx.wasm
	tsxWasm []byte
	//go:embed grammars/python.wasm
	pythonWasm []byte
	//go:embed grammars/rust.wasm
	rustWasm []byte
	//go:embed grammars/java.wasm
	javaWasm []byte
	//go:embed grammars/c.wasm
	cWasm []byte
	//go:embed grammars/bash.wasm
	bashWasm []byte
)

// grammars are the embedded grammars by language id (the tree store's
// tests reach a language's grammar through it).
var grammars = map[string]*grammar{}

// treeSitter makes a language parsed by an embedded grammar.
func treeSitter(id string, wasm []byte, exts, aliases []string, scaffolds ...Scaffold) *Language {
	g := newGrammar(id, wasm)
	grammars[id] = g
	return &Language{ID: id, Aliases: aliases, Extensions: exts, Scaffolds: scaffolds, Parse: g.parse}
}

func terminated(l *Language) *Language {
	l.Terminator = ";"
	return l
}

// The ladders: the first rung is the file's own top level where the
// grammar takes statements there; an expression is parenthesised so that
// an object literal or a lambda is not read as a block or a declaration.
var (
	JavaScript = treeSitter("javascript", javascriptWasm, []string{".js", ".mjs", ".cjs", ".jsx"}, []string{"js", "jsx"},
		Scaffold{Name: "statement"},
		Scaffold{Name: "expression", Prefix: "(", Suffix: ")"},
		Scaffold{Name: "class member", Prefix: "class _ {\n", Suffix: "\n}"},
	)
	TypeScript = treeSitter("typescript", typescriptWasm, []string{".ts", ".mts", ".cts"}, []string{"ts"},
		Scaffold{Name: "statement"},
		Scaffold{Name: "expression", Prefix: "(", Suffix: ")"},
		Scaffold{Name: "class member", Prefix: "class _ {\n", Suffix: "\n}"},
		Scaffold{Name: "declaration", Prefix: "interface _ {\n", Suffix: "\n}"},
	)
	TSX = treeSitter("tsx", tsxWasm, []string{".tsx"}, nil,
		Scaffold{Name: "statement"},
		Scaffold{Name: "expression", Prefix: "(", Suffix: ")"},
		Scaffold{Name: "class member", Prefix: "class _ {\n", Suffix: "\n}"},
		Scaffold{Name: "declaration", Prefix: "interface _ {\n", Suffix: "\n}"},
	)
	Python = treeSitter("python", pythonWasm, []string{".py", ".pyi"}, []string{"py"},
		Scaffold{Name: "statement"},
		Scaffold{Name: "expression", Prefix: "(", Suffix: ")"},
		Scaffold{Name: "class member", Prefix: "class _:\n    ", Suffix: "\n", Indent: "    "},
	)
	Rust = treeSitter("rust", rustWasm, []string{".rs"}, []string{"rs"},
		Scaffold{Name: "statement", Prefix: "fn _() {\n", Suffix: "\n}"},
		Scaffold{Name: "expression", Prefix: "fn _() {\n(", Suffix: ")\n}"},
		Scaffold{Name: "class member", Prefix: "impl _ {\n", Suffix: "\n}"},
		Scaffold{Name: "declaration"},
	)
	Java = terminated(treeSitter("java", javaWasm, []string{".java"}, nil,
		Scaffold{Name: "statement", Prefix: "class A { void f() {\n", Suffix: "\n} }"},
		Scaffold{Name: "expression", Prefix: "class A { Object o = ", Suffix: "; }"},
		Scaffold{Name: "class member", Prefix: "class A {\n", Suffix: "\n}"},
		Scaffold{Name: "declaration"},
	))
	C = terminated(treeSitter("c", cWasm, []string{".c", ".h"}, nil,
		Scaffold{Name: "statement", Prefix: "void _() {\n", Suffix: "\n}"},
		Scaffold{Name: "expression", Prefix: "void _() {\n(", Suffix: ");\n}"},
		Scaffold{Name: "class member", Prefix: "struct _ {\n", Suffix: "\n};"},
		Scaffold{Name: "declaration"},
	))
	Bash = terminated(treeSitter("bash", bashWasm, []string{".sh", ".bash"}, []string{"sh", "shell"},
		Scaffold{Name: "statement"},
		Scaffold{Name: "expression", Prefix: "echo $(", Suffix: ")"},
		Scaffold{Name: "declaration", Prefix: "_() {\n", Suffix: "\n}"},
	))
)
