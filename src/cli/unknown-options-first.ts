/**
 * Commander checks mandatory options before unknown ones, so `import --organization X` answered
 * "required option '--org <id>' not specified" instead of naming the misspelt flag. Here each command's
 * mandatory options are checked in a preAction hook instead, which Commander runs after its unknown
 * option check: a typo is named first, a genuinely missing option is still reported the same way.
 */
import type { Command } from 'commander';

/** Applies to `program` and every subcommand below it; call once the commands are registered. */
export function reportUnknownOptionsFirst(program: Command): void {
  for (const command of [program, ...program.commands]) {
    const mandatory = command.options.filter((o) => o.mandatory);
    if (mandatory.length > 0) {
      for (const option of mandatory) option.mandatory = false;
      command.hook('preAction', (_this, action) => {
        for (const option of mandatory) {
          if (action.getOptionValue(option.attributeName()) === undefined) {
            action.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: 1 });
          }
        }
      });
    }
    if (command !== program) reportUnknownOptionsFirst(command);
  }
}
