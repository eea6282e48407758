import { field } from '../../core/resource/fields';
import { mixin } from '../../core/resource/mixin';

/**
 * A power port's draw (and its template's): maximum and allocated watts, the power factor, and
 * the reference's rule that the allocated draw may not exceed the maximum.
 */
export const powerDraw = () =>
  mixin({
    fields: () => ({
      maximum_draw: field.integer({ nullable: true, minValue: 1, maxValue: 32767, help: 'Maximum power draw (watts)' }),
      allocated_draw: field.integer({ nullable: true, minValue: 1, maxValue: 32767, help: 'Allocated power draw (watts)' }),
      power_factor: field.decimal({
        maxDigits: 4,
        decimalPlaces: 2,
        default: '0.95',
        minValue: 0.01,
        maxValue: 1,
        help: 'Power factor (0.01-1.00) for converting between watts (W) and volt-amps (VA). Defaults to 0.95.',
      }),
    }),
    rules(s) {
      const { maximum_draw: max, allocated_draw: allocated } = s.values;
      if (max !== null && max !== undefined && allocated !== null && allocated !== undefined && Number(allocated) > Number(max)) {
        return { allocated_draw: [`Allocated draw cannot exceed the maximum draw (${max}W).`] };
      }
    },
  });
