import { FamilyRegistry } from '../../src/chains/families';
import { toyFamily } from './toy/family';

/** The test tree's family registry: the built-in families, and the toy family in POLYGON's place. */
export const TEST_FAMILIES = FamilyRegistry.builtIn().with(toyFamily);
