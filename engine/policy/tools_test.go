package policy

import (
	"sort"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// exampleWS is the corpus fixture with the tool itself allowed (and not
// denied), so that its examples test the tool's rule and nothing else.
func exampleWS(t testing.TB, names []string) *workspace.Workspace {
	ws := corpusWS(t)
	c := &ws.Settings.Commands
	for _, n := range names {
		c.Allow = append(c.Allow, n)
	}
	var deny []string
	for _, d := range c.Deny {
		keep := true
		for _, n := range names {
			keep = keep && d != n
		}
		if keep {
			deny = append(deny, d)
		}
	}
	c.Deny = deny
	return ws
}

func uniqueSpecs() []*toolSpec {
	seen := map[*toolSpec]bool{}
	var out []*toolSpec
	for _, s := range toolSpecs() {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].names[0] < out[j].names[0] })
	return out
}

// TestToolRuleExamples loads every tool rule and runs the argv lines it
// must allow and must refuse (Codex execpolicy's match / not_match): a
// rule whose example disagrees fails here, naming the rule and the line.
func TestToolRuleExamples(t *testing.T) {
	for _, spec := range uniqueSpecs() {
		if _, err := spec.table(); err != nil {
			t.Errorf("%v", err)
		}
		if len(spec.allow)+len(spec.refuse) == 0 && spec.names[0] != "sh" {
			t.Errorf("the %s rule has no examples", spec.names[0])
		}
	}
	probes := record(exampleProbes(t))
	for _, p := range probes {
		v := p.got
		switch {
		case p.want == "" && !v.Allowed:
			t.Errorf("%s rule: its allow example %q is refused (%s): %s", p.rule, p.line, v.Reason, v.Message)
		case p.want == "":
		case v.Allowed:
			t.Errorf("%s rule: its refuse example %q is allowed", p.rule, p.line)
		case p.want != "refused" && v.Reason != p.want:
			t.Errorf("%s rule: its refuse example %q is refused as %s, the example says %s: %s", p.rule, p.line, v.Reason, p.want, v.Message)
		case v.Message == "":
			t.Errorf("%s rule: %q is refused without a message", p.rule, p.line)
		}
	}
	for sub := range gitSections() {
		if _, err := gitSub(sub).table(); err != nil {
			t.Errorf("git %s: %v", sub, err)
		}
	}
	t.Logf("%d tool rules, %d examples, %d git subcommand tables", len(uniqueSpecs()), len(probes), len(gitSections()))
	t.Run("EveryRowIsNeeded", func(t *testing.T) {
		everyRowIsNeeded(t, append(probes, record(variantProbes(t))...))
	})
}

// TestRuleTableErrors: a table that does not parse fails closed.
func TestRuleTableErrors(t *testing.T) {
	for _, opts := range []string{"-o|--out=F bogus", "-o\n-o", "--x write", "oops"} {
		spec := &toolSpec{names: []string{"broken"}, opts: opts}
		if _, err := spec.table(); err == nil {
			t.Errorf("%q parsed", opts)
		}
	}
	spec := &toolSpec{names: []string{"echo"}, opts: "-o write"}
	ws := fixture(t)
	c := &checker{ws: ws, allow: map[string]bool{}, deny: map[string]bool{}, seen: map[string]bool{}, dirs: []string{"."}}
	if c.runSpec(spec, "echo", nil, 0); !c.refused || c.v.Reason != NotAllowed {
		t.Errorf("a broken table must refuse: %+v", c.v)
	}
}

// variants are further tricks of each family, beyond the rules' own
// examples, checked against the corpus fixture (runners allowed where a
// case says so).
var variants = []tcase{
	// bundling and attached values
	{line: "sort -rno/tmp/x f", reason: PathEscape},
	{line: "sort -k1 -T/tmp f", reason: PathEscape},
	{line: "sed -nsi p .git/HEAD", reason: PathEscape},
	{line: "sed -sne 1e f", reason: DeniedPattern},
	{line: "sed -E -n -e p -e 'w x' f", reason: DeniedPattern},
	{line: "sed --quiet --expression=p --in-place .agentic/x", reason: PathEscape},
	{line: "sed p f -i", setup: nil},
	{line: "tar -cvzf/tmp/a.tgz .", reason: PathEscape},
	{line: "tar -cvz -f .git/a.tgz .", reason: PathEscape},
	{line: "tar cvfI a.tar ./evil .", reason: DeniedPattern},
	{line: "tar -xOzf a.tgz README.md"},
	{line: "tar -tvf a.tar"},
	{line: "awk -vOFS=, -F: '{print $1}' f"},
	{line: "awk -F, -f prog.awk f", reason: NestedCommand},
	{line: "awk -- 'BEGIN{system(\"id\")}'", reason: DeniedPattern},
	{line: "less -iNk keys f", reason: NestedCommand},
	{line: "less -o/tmp/log f", reason: PathEscape},
	{line: "man -CX ls", reason: NestedCommand},
	{line: "man -kP evil ls", reason: DeniedPattern},
	{line: "vim -nRc '!id' f", reason: DeniedPattern},
	{line: "vim -nes f", reason: NestedCommand},
	{line: "vi -Z -S x.vim f", reason: NestedCommand},
	{sh: true, line: "echo ':!id' | vim -R f", reason: NestedCommand},
	{sh: true, line: "vim f <<EOF\n:!id\nEOF", reason: NestedCommand},
	{sh: true, line: "ed f < script.ed", reason: NestedCommand, setup: func(s *workspace.Settings) { s.Commands.Allow = append(s.Commands.Allow, "ed") }},
	{line: "git archive --remote=ext::id HEAD", reason: DeniedPattern},
	{line: "git fetch 'ext::sh -c id'", reason: DeniedPattern},
	{line: "git -c remote.x.url=ext::id fetch x", reason: DeniedPattern},
	{line: "env -iu HOME rm x", reason: DeniedExecutable},
	{line: "env -vS'rm x'", reason: NestedCommand},
	{line: "timeout -sKILL 5 rm x", reason: DeniedExecutable},
	{line: "timeout --kill-after=1 --signal=9 5 rm x", reason: DeniedExecutable},
	{line: "nice -n19 rm x", reason: DeniedExecutable},
	{line: "nice --adjustment=19 rm x", reason: DeniedExecutable},
	{line: "cp -rt .git x", reason: PathEscape},
	{line: "cp --target-dir=/tmp x", reason: PathEscape},
	{line: "mv -v --target-directory=.agentic x", reason: PathEscape},
	{line: "install -Dm0755 x .git/hooks/post-checkout", reason: PathEscape},
	{line: "ln -sfT x .git/hooks/pre-push", reason: PathEscape},
	{line: "ln -f .agentic/config.json sub/c", reason: PathEscape},
	{line: "touch -- .git/x", reason: PathEscape},
	{line: "truncate -s0 -- .agentic/config.json", reason: PathEscape},
	{line: "chmod -R 777 .git", reason: PathEscape},
	{line: "dd of=.agentic/config.json", reason: PathEscape},
	{line: "dd if=/dev/zero of=../x count=1", reason: PathEscape},
	{line: "tee -ap .git/config", reason: PathEscape},
	{line: "mkdir -pm 755 .git/hooks", reason: PathEscape},
	// go's output flags
	{line: "go build -o .git/hooks/pre-commit ./cmd/x", reason: PathEscape},
	{line: "go build -o=/tmp/x .", reason: PathEscape},
	{line: "go test -coverprofile=.agentic/c.out ./...", reason: PathEscape},
	{line: "go test -c -o ../x.test ./pkg", reason: PathEscape},
	{line: "go test ./... -args -test.cpuprofile=/tmp/p", reason: PathEscape},
	{line: "go build -o dist/app ./cmd/app"},
	{line: "go test -coverprofile=cover.out ./..."},
	// GNU long-option abbreviations
	{line: "sort --output=/tmp/x f", reason: PathEscape},
	{line: "sort --outp=/tmp/x f", reason: PathEscape},
	{line: "sort --compress-prog=gzip f", reason: DeniedPattern},
	{line: "tar --use=./evil -cf a.tar .", reason: DeniedPattern},
	{line: "tar --checkp=1 --checkpoint-act=exec=id -cf a.tar .", reason: DeniedPattern},
	{line: "tar --to-com=id -xf a.tar", reason: DeniedPattern},
	{line: "tar --inf=./evil -cf a.tar .", reason: DeniedPattern},
	{line: "git fetch --upload-pa=./evil origin", reason: DeniedPattern},
	{line: "git push --receive=./evil", reason: DeniedPattern},
	{line: "git clone --upload=./evil h:r", reason: DeniedPattern},
	{line: "git rebase --exe=id main", reason: DeniedPattern},
	{line: "git archive --outp=/tmp/a.tar HEAD", reason: PathEscape},
	{line: "git format-patch --output-dir=/tmp HEAD~1", reason: PathEscape},
	{line: "man --pa=evil ls", reason: DeniedPattern},
	{line: "man --conf=x ls", reason: NestedCommand},
	{line: "less --lessk=keys f", reason: DeniedPattern}, // ambiguous: lesskey-file, -src, -content
	{line: "less --lesskey-fi=keys f", reason: NestedCommand},
	{line: "sed --in=x p f"}, // --in-place with the suffix x
	{line: "time --outp=/tmp/x go test", reason: PathEscape},
	{line: "xargs --arg-f=.env grep x", reason: PathEscape},
	{line: "npm run build --script-sh=./evil", reason: DeniedPattern},
	{line: "npm test --node-opt=--require=./x", reason: DeniedPattern},
	// git's configuration-setting options and global options
	{line: "git -c core.fsmonitor=./x status", reason: DeniedPattern},
	{line: "git -c Core.Pager=id log", reason: DeniedPattern},
	{line: "git -c filter.x.clean=id add .", reason: DeniedPattern},
	{line: "git -c diff.x.textconv=id diff", reason: DeniedPattern},
	{line: "git -c alias.l=!id l", reason: DeniedPattern},
	{line: "git -c include.path=../x status", reason: DeniedPattern},
	{line: "git -c protocol.ext.allow=always fetch", reason: DeniedPattern},
	{line: "git -c safe.bareRepository=all status", reason: DeniedPattern},
	{line: "git -c safe.directory=* status", reason: DeniedPattern},
	{line: "git --config-env core.pager=X log", reason: DeniedPattern},
	{line: "git --exec-path=. status", reason: DeniedPattern},
	{line: "git --exec-path"},
	{line: "git --git-dir .git status"},
	{line: "git --work-tree=/ status", reason: PathEscape},
	{line: "git -C sub -c core.pager=id log", reason: DeniedPattern},
	{line: "git --namespace=x --bare -c core.hooksPath=x status", reason: DeniedPattern},
	{line: "git clone --config core.pager=id h:r", reason: DeniedPattern},
	{line: "git -p log"},
	{line: "git -ccore.pager=id log", reason: DeniedPattern},
	{line: "git stash push -m wip"},
	{line: "git submodule update --init"},
	{line: "git submodule --quiet foreach id", reason: NestedCommand},
	{line: "git worktree add -b x /tmp/wt", reason: PathEscape},
	{line: "git config --global --add alias.x !id", reason: DeniedPattern},
	{line: "git config alias.x", setup: nil},
	{line: "git grep -O foo", reason: DeniedPattern},
	{line: "git difftool -y", reason: NestedCommand},
	{line: "git log --output=.agentic/x", reason: PathEscape},
	{line: "git log -p --outpu=../x", reason: DeniedPattern}, // ambiguous, as git says too
	{line: "git log -p --output ../x", reason: PathEscape},
	// find's exec family
	{sh: true, line: `find . -name '*.go' -exec grep -l foo {} +`},
	{sh: true, line: `find . -execdir rm {} \;`, reason: DeniedExecutable},
	{sh: true, line: `find . -ok curl {} \;`, reason: DeniedExecutable},
	{sh: true, line: `find sub -okdir wget {} +`, reason: DeniedExecutable},
	{sh: true, line: `find . \( -name a -o -exec rm {} \; \)`, reason: DeniedExecutable},
	{sh: true, line: `find . -exec env rm {} \;`, reason: DeniedExecutable},
	{sh: true, line: `find . -exec {} \;`, reason: NotAllowed},
	{sh: true, line: `find -L . -fprint0 out`, reason: DeniedPattern},
	{sh: true, line: `find . -fprintf out %p`, reason: DeniedPattern},
	{sh: true, line: `find . -name x -delete`, reason: DeniedPattern},
	{sh: true, line: `find . -newerXY x`, reason: DeniedPattern},
	{sh: true, line: `find . -printf '%p\n'`},
	// command and builtins that change how the next word is looked up
	{line: "command -v rm", reason: DeniedExecutable},
	{line: "command rm -v x", reason: DeniedExecutable},
	{line: "command -p -v rm", reason: DeniedExecutable},
	{line: "command -Vp rm", reason: DeniedExecutable},
	{line: "command -v go"},
	{sh: true, line: "command -v curl || echo none", reason: DeniedExecutable},
	{sh: true, line: "builtin command rm x", reason: DeniedExecutable},
	{sh: true, line: "exec -a ls rm x", reason: DeniedExecutable},
	{sh: true, line: "hash -p /bin/rm ls; ls", reason: NotAllowed},
	{sh: true, line: "enable -f ./x.so x", reason: NestedCommand},
	// wrappers that run their operands
	{line: "fakeroot rm x", reason: NestedCommand},
	{line: "faketime 2020-01-01 rm x", reason: NestedCommand},
	{line: "xvfb-run rm x", reason: NestedCommand},
	{line: "eatmydata rm x", reason: NestedCommand},
	// environment on the line
	{sh: true, line: "TAR_OPTIONS=--to-command=id tar -tf a.tar", reason: DeniedPattern},
	{sh: true, line: "RIPGREP_CONFIG_PATH=x rg foo", reason: DeniedPattern},
	{sh: true, line: "LESSOPEN='|id %s' less f", reason: DeniedPattern},
	{sh: true, line: "MANPAGER=id man ls", reason: DeniedPattern},
	{sh: true, line: "GIT_DIR=x git status", reason: DeniedPattern},
	{sh: true, line: "GIT_CONFIG_PARAMETERS=x git status", reason: DeniedPattern},
	{sh: true, line: "EDITOR=id git commit", reason: DeniedPattern},
	{sh: true, line: "PYTHONWARNINGS=x python3 -V", reason: DeniedPattern},
	{sh: true, line: "GREP_OPTIONS=x grep a f", reason: DeniedPattern},
	{sh: true, line: "FOO_CONFIG_PATH=x go test", reason: DeniedPattern},
	{sh: true, line: "XZ_OPT=x tar -cJf a.tar.xz .", reason: DeniedPattern},
	{line: "env TAR_OPTIONS=-I./evil tar -cf a.tar .", reason: DeniedPattern},
	{line: "env git_dir=x git status", reason: DeniedPattern},
	{line: "xargs --process-slot-var=LD_PRELOAD grep x", reason: DeniedPattern, setup: allowXargs},
}

func allowXargs(s *workspace.Settings) { s.Commands.Allow = append(s.Commands.Allow, "xargs") }

// variantAllow is a variant's settings when it names none: the runners
// and writers the variants exercise are allowed.
func variantAllow(s *workspace.Settings) {
	s.Commands.Allow = append(s.Commands.Allow, "vi", "mv", "install", "ln", "touch", "truncate", "chmod", "dd", "xargs")
}

func TestToolRuleVariants(t *testing.T) {
	for _, tc := range variants {
		if tc.setup == nil {
			tc.setup = variantAllow
		}
		t.Run(name(tc), func(t *testing.T) {
			v := run(t, tc)
			if tc.reason == "" {
				if !v.Allowed {
					t.Fatalf("refused (%s): %s", v.Reason, v.Message)
				}
				return
			}
			if v.Allowed || v.Reason != tc.reason {
				t.Fatalf("allowed=%v reason %s (%s), want %s", v.Allowed, v.Reason, v.Message, tc.reason)
			}
		})
	}
}

// BenchmarkCheckToolLine500 checks a 500-command sh line of ruled tools:
// every command read by its option table, the git ones also walked for
// their repository.
func BenchmarkCheckToolLine500(b *testing.B) {
	ws := fixture(b)
	ws.Settings.Commands.Interpreter = "sh"
	line := strings.Repeat("git log --oneline -n 5 && sed -n 1,5p README.md && find . -name '*.go' -type f && sort -o sub/out.txt README.md && tar -czf dist.tar.gz dist && ", 100)
	line = strings.TrimSuffix(line, " && ")
	if v := Check(ws, Request{Line: line}); !v.Allowed || len(v.Commands) != 500 {
		b.Fatalf("%d commands, %s %s", len(v.Commands), v.Reason, v.Message)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		Check(ws, Request{Line: line})
	}
	// CPU time as well as wall time: on a shared machine the wall clock
	// measures the neighbours.
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
