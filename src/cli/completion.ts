import type { Command } from "commander";

/** Every command path (space-separated, "" for the root) with the words that may follow it. */
function wordTable(program: Command): [string, string[]][] {
  const table: [string, string[]][] = [];
  const walk = (cmd: Command, path: string) => {
    const words = [
      ...cmd.commands.map((c) => c.name()),
      ...cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)),
      "--help",
    ];
    table.push([path, words]);
    for (const sub of cmd.commands) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, "");
  return table;
}

/** A shell word list, quoted for a `case` arm (command names and flags hold no quotes). */
const quote = (s: string) => `"${s}"`;

/**
 * A bash completion script for `program`, generated from its command tree: the subcommands and
 * options that can follow the words typed so far (arguments such as ids are skipped over).
 */
export function bashCompletion(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/\W/g, "_")}`;
  const arms = wordTable(program).map(([path, words]) => `    ${quote(path)}) echo ${quote(words.join(" "))} ;;`);
  return `# ${name} completion for bash: eval "$(${name} completion bash)" (e.g. in ~/.bashrc)
${fn}_words() {
  case "$1" in
${arms.join("\n")}
    *) return 1 ;;
  esac
}
${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} key="" next w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    [[ $w == -* ]] && continue
    next="\${key:+$key }$w"
    ${fn}_words "$next" >/dev/null && key=$next
  done
  COMPREPLY=($(compgen -W "$(${fn}_words "$key")" -- "$cur"))
}
complete -F ${fn} ${name}
`;
}

/** zsh runs the bash script through its bashcompinit layer (part of every zsh install). */
export function zshCompletion(program: Command): string {
  const name = program.name();
  return `#compdef ${name}
# ${name} completion for zsh: eval "$(${name} completion zsh)" (e.g. in ~/.zshrc)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split("\n").slice(1).join("\n")}`;
}
