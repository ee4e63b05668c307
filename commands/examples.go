package commands

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are the Example text of every verb, by its command path after
// "aw": one table, shown by --help and as the EXAMPLES of its man page.
// A test parses every line against the command tree, so an example cannot
// name a flag or a verb that does not exist.
var examples = map[string][]string{
	"inspect capabilities":    {"aw inspect capabilities", "aw inspect capabilities --jq '.data.tools[].name'"},
	"inspect changes":         {"aw inspect changes"},
	"inspect overview":        {"aw inspect overview", "aw inspect overview --depth 3"},
	"inspect list":            {"aw inspect list", "aw inspect list src --depth 2 --ignore '*.min.js'"},
	"inspect read":            {"aw inspect read README.md", "aw inspect read engine/edit/tx.go --start 120 --limit 40"},
	"inspect search":          {"aw inspect search 'func Test' --glob '*_test.go'", "aw inspect search TODO src --fixed -C 2 --max-results 50"},
	"inspect find":            {"aw inspect find '*.go'", "aw inspect find 'package.json' web --max-results 20"},
	"inspect stat":            {"aw inspect stat go.mod"},
	"inspect semantic-search": {"aw inspect semantic-search 'where are timestamps parsed' --limit 5", "aw inspect semantic-search 'retry with backoff' src --lang python"},
	"inspect index status":    {"aw inspect index status"},
	"inspect index rebuild":   {"aw inspect index rebuild"},

	"edit preview": {
		`aw edit preview --op '{"type":"replace","path":"main.go","search":"old","replacement":"new"}'`,
		"aw edit preview --input ops.json",
	},
	"edit apply": {
		`aw edit apply --op '{"type":"create","path":"docs/notes.md","content":"# Notes\n"}'`,
		`aw edit apply --op '{"type":"move","from":"a.go","to":"b.go"}' --op '{"type":"delete","path":"c.go"}'`,
	},
	"edit commit":   {"aw edit commit tx_01h..."},
	"edit list":     {"aw edit list"},
	"edit show":     {"aw edit show tx_01h..."},
	"edit rollback": {"aw edit rollback tx_01h...", "aw edit rollback tx_01h... --force"},

	"ast grep": {
		`aw ast grep 'if $X != nil { return $X }'`,
		`aw ast grep 'fmt.Errorf($F, $$$ARGS)' engine --lang go --max-results 200`,
	},
	"ast edit":    {`aw ast edit 'errors.New(fmt.Sprintf($$$A))' --rewrite 'fmt.Errorf($$$A)'`},
	"ast resolve": {"aw ast resolve tx_01h... accept", "aw ast resolve tx_01h... discard"},

	"plan propose": {
		"aw plan propose --input plan.json",
		`echo '{"title":"Fix","objective":"...","steps":["edit a.go"]}' | aw plan propose --input -`,
	},
	"plan current":  {"aw plan current"},
	"plan list":     {"aw plan list"},
	"plan show":     {"aw plan show plan_01h..."},
	"plan complete": {"aw plan complete", "aw plan complete plan_01h..."},

	"notes list":   {"aw notes list"},
	"notes read":   {"aw notes read design", "aw notes read --memory"},
	"notes write":  {"aw notes write design --content 'Keep the parser pure.'", "aw notes write --memory < MEMORY.draft"},
	"notes append": {"aw notes append design --content 'Decided: no cache.'", "echo 'Run go test before commit.' | aw notes append --memory"},
	"notes delete": {"aw notes delete design"},

	"command run": {
		"aw command run -- go test ./...",
		"aw command run --cwd web --timeout 120 -- npm test",
		"aw command run --line 'go vet ./... && go test ./engine/...'",
	},
	"command start":  {"aw command start -- go test -count 5 ./...", "aw command start --line 'npm run build'"},
	"command test":   {"aw command test", "aw command test --pattern 'TestParse$' --path ./engine/policy", "aw command test --pattern 'cart total' --path src/cart.test.js"},
	"command status": {"aw command status job_01h...", "aw command status job_01h... --tail-chars 4000"},
	"command output": {"aw command output job_01h...", "aw command output job_01h... --since o:1024,e:0 --wait-ms 5000"},
	"command wait":   {"aw command wait job_01h... --timeout 60"},
	"command list":   {"aw command list", "aw command list --limit 5"},
	"command cancel": {"aw command cancel job_01h...", "aw command cancel --all"},
	"command diff":   {"aw command diff job_01h..."},
	"command undo":   {"aw command undo job_01h...", "aw command undo job_01h... --force"},

	"policy check-command": {"aw policy check-command -- git push --force", "aw policy check-command --line 'sed -i s/a/b/ main.go'"},
	"policy check-path":    {"aw policy check-path .env", "aw policy check-path .agentic/config.json --write"},

	"tasks create":     {`aw tasks create 'Release 1.2' --item 'Write notes' --item '{"text":"Tag","depends_on":["1"]}'`},
	"tasks list":       {"aw tasks list", "aw tasks list --all"},
	"tasks show":       {"aw tasks show board_01h...", "aw tasks show board_01h... --checkpoint checkpoint_01h..."},
	"tasks add":        {"aw tasks add board_01h... --item 'Update the changelog'", `aw tasks add board_01h... --item '{"text":"Deploy","priority":"high"}'`},
	"tasks update":     {"aw tasks update board_01h... item_01h... --status completed --evidence 'go test ./... passed'"},
	"tasks next":       {"aw tasks next board_01h..."},
	"tasks note":       {"aw tasks note board_01h... 'Blocked on review' --item item_01h..."},
	"tasks remove":     {"aw tasks remove board_01h... item_01h...", "aw tasks remove board_01h... item_01h... --detach"},
	"tasks checkpoint": {"aw tasks checkpoint board_01h... --label 'before refactor'"},
	"tasks archive":    {"aw tasks archive board_01h..."},
	"tasks reopen":     {"aw tasks reopen board_01h..."},
	"tasks todo read":  {"aw tasks todo read"},
	"tasks todo write": {`echo '{"todos":[{"content":"Read the failing test","status":"in_progress"}]}' | aw tasks todo write --input -`},

	"research start":   {"aw research start 'HTTP/3 adoption'"},
	"research search":  {"aw research search 'QUIC loss recovery' --provider wikipedia --research research_01h..."},
	"research fetch":   {"aw research fetch https://www.rfc-editor.org/rfc/rfc9000 --research research_01h..."},
	"research deep":    {"aw research deep 'Compare QUIC loss recovery with TCP'", "aw research deep --research research_01h... --objective 'Which HTTP/3 clients exist for Go?'", "aw research deep --run run_01h... --timeout 600"},
	"research list":    {"aw research list", "aw research list --all"},
	"research show":    {"aw research show research_01h..."},
	"research note":    {"aw research note research_01h... --kind finding --text 'RFC 9002 replaces TCP-style RTO' --source source_01h..."},
	"research archive": {"aw research archive research_01h..."},

	"vcs status":       {"aw vcs status", "aw vcs status src --ignored"},
	"vcs diff":         {"aw vcs diff", "aw vcs diff --staged engine/"},
	"vcs log":          {"aw vcs log", "aw vcs log -n 5 -- go.mod"},
	"vcs show":         {"aw vcs show", "aw vcs show HEAD~1"},
	"vcs add":          {"aw vcs add main.go docs/"},
	"vcs commit":       {"aw vcs commit -m 'parser: accept CRLF input'"},
	"vcs branch":       {"aw vcs branch", "aw vcs branch topic --create", "aw vcs branch topic --delete"},
	"vcs checkout":     {"aw vcs checkout topic"},
	"vcs init":         {"aw vcs init --branch main"},
	"vcs push":         {"aw vcs push", "aw vcs push --remote origin"},
	"vcs gh-auth":      {"aw vcs gh-auth"},
	"vcs pr-list":      {"aw vcs pr-list --state open --limit 10"},
	"vcs pr-create":    {"aw vcs pr-create --title 'Accept CRLF input' --base main --draft"},
	"vcs pr-diff":      {"aw vcs pr-diff 42"},
	"vcs issue-list":   {"aw vcs issue-list --label bug --limit 10"},
	"vcs issue-create": {"aw vcs issue-create --title 'Parser drops CRLF' --body 'Seen on Windows checkouts.' --label bug"},

	"lsp definition":      {"aw lsp definition main.go 12 Println"},
	"lsp type-definition": {"aw lsp type-definition main.go 20 cfg"},
	"lsp implementation":  {"aw lsp implementation store.go 8 Reader"},
	"lsp references":      {"aw lsp references store.go 40 Open"},
	"lsp hover":           {"aw lsp hover main.go 12 Println"},
	"lsp symbols":         {"aw lsp symbols --query Store", "aw lsp symbols main.go"},
	"lsp diagnostics":     {"aw lsp diagnostics main.go", "aw lsp diagnostics '*'"},
	"lsp code-actions":    {"aw lsp code-actions main.go 12 err"},
	"lsp status":          {"aw lsp status"},
	"lsp reload":          {"aw lsp reload"},
	"lsp rename":          {"aw lsp rename store.go 40 Open OpenStore"},
	"debug adapters":      {"aw debug adapters"},
	"debug status":        {"aw debug status"},
	"debug breakpoints":   {"aw debug breakpoints main.go 12 30", "aw debug breakpoints main.go"},
	"debug launch":        {"aw debug launch ./cmd/tool --verbose", "aw debug launch --wait 60 app.py"},
	"debug attach":        {"aw debug attach 2345"},
	"debug continue":      {"aw debug continue"},
	"debug pause":         {"aw debug pause"},
	"debug step-over":     {"aw debug step-over"},
	"debug step-in":       {"aw debug step-in --thread 1"},
	"debug step-out":      {"aw debug step-out"},
	"debug threads":       {"aw debug threads"},
	"debug stack":         {"aw debug stack", "aw debug stack --thread 7"},
	"debug scopes":        {"aw debug scopes 1000"},
	"debug variables":     {"aw debug variables 1001"},
	"debug evaluate":      {"aw debug evaluate 'len(items)'", "aw debug evaluate 'cfg.Name' --frame 1002"},
	"debug output":        {"aw debug output", "aw debug output --since 4096"},
	"debug terminate":     {"aw debug terminate"},
	"eval":                {"aw eval 'rows = load(\"data.csv\")' --description 'load the sales rows'", "aw eval - --description 'plot latency by hour' < cell.py"},
	"broker status":       {"aw broker status"},

	"host ls":      {"aw host ls", "aw host ls notes/ --snapshot snapshot_01h..."},
	"host get":     {"aw host get DIRECTIVES.md", "aw host get DIRECTIVES.md --version 3"},
	"host put":     {"aw host put DIRECTIVES.md --content 'Answer in English.' --if-match '\"v3\"'", "aw host put MEMORY-INDEX.json --content-type application/json < index.json"},
	"host rm":      {"aw host rm notes/old.md"},
	"host history": {"aw host history DIRECTIVES.md"},
	"host watch":   {"aw host watch --count 10 --timeout 60", "aw host watch --after 42"},

	"serve token add":    {"aw serve token add --tenant acme --workspace support-bot --name ci"},
	"serve token list":   {"aw serve token list", "aw serve token list --db postgres://aw@db.internal/aw"},
	"serve token revoke": {"aw serve token revoke token_01h...", "aw serve token revoke ci"},
	"broker stop":        {"aw broker stop"},

	"browser open":    {"aw browser open", "aw browser open https://example.com"},
	"browser read":    {"aw browser read session_01h..."},
	"browser control": {"aw browser control session_01h... --type click --selector 'button#submit'", "aw browser control session_01h... --type navigate --url https://example.com/docs"},
	"browser list":    {"aw browser list"},
	"browser close":   {"aw browser close session_01h..."},

	"agent run": {
		"aw agent run 'Add a test for ParseTier in engine/workspace' --max-tool-calls 30",
		"aw agent run --objective 'Find where timeouts are set' --mode research --commit-edits=false",
	},
	"agent start":   {"aw agent start 'Refactor the parser'", "aw agent start --worker-tier fast --max-tool-calls 20 'Add a test for ParseTier'", "aw agent start --resume run_01h..."},
	"agent status":  {"aw agent status run_01h..."},
	"agent history": {"aw agent history run_01h...", "aw agent history run_01h... --offset 50 --limit 50"},
	"agent list":    {"aw agent list", "aw agent list --limit 5"},
	"agent cancel":  {"aw agent cancel run_01h..."},
	"agent send":    {"aw agent send run_01h... 'Also update the README'"},
	"agent wait":    {"aw agent wait run_01h...", "aw agent wait run_01h... --timeout 600"},

	"ask":    {"aw ask 'Keep the old config format?' --option 'keep:stay compatible' --option 'drop:simpler code' --wait 600"},
	"answer": {"aw answer", "aw answer question_01h... keep", "aw answer question_01h... --skip"},

	"approval list":   {"aw approval list"},
	"approval show":   {"aw approval show approval_01h..."},
	"approval accept": {"aw approval accept", `aw approval accept approval_01h... "looks right"`},
	"approval deny":   {"aw approval deny", "aw approval deny approval_01h... 'no network calls from tests'"},
	"approval token":  {"aw approval token"},

	"config list": {"aw config list"},
	"config get":  {"aw config get permissionMode"},
	"config set":  {"aw config set permissionMode 0", `aw config set commands.allow '["go","make"]'`},

	"prompt":           {"echo '/accept approval_01h... go ahead' | AW_APPROVER_TOKEN=... aw prompt --text"},
	"call":             {`aw call workspace_inspect '{"action":"read","path":"README.md"}'`, `echo '{"action":"list"}' | aw call edit -`},
	"mcp":              {"aw mcp", "aw mcp --root ../project"},
	"schema":           {"aw schema -o json --jq '.data.tools[].name'", "aw schema workspace_edit --format openai"},
	"envelope compact": {"aw inspect overview -o json | aw envelope compact --budget 4000"},
	"init":             {"aw init"},
	"gc":               {"aw gc --dry-run", "aw gc"},
	"version":          {"aw version"},
}

// addExamples sets each built verb's Example from the table.
func addExamples(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimPrefix(c.CommandPath(), "aw ")
		if lines, ok := examples[path]; ok {
			c.Example = "  " + strings.Join(lines, "\n  ")
		}
	}
	walk(root)
}
