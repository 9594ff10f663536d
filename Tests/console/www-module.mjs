// Loads one of the console's browser modules (ES modules named .js, served to browsers as such) in Node,
// whatever Node makes of a bare .js file: from its source, as a module. For modules that import nothing.
import { readFile } from 'node:fs/promises';

export async function wwwModule(name) {
  const source = await readFile(new URL(`../../Sources/YrdenConsole/www/${name}`, import.meta.url), 'utf8');
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}
