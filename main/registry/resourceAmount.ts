// The LimitRanger and ResourceQuota admission plugins' names for resource.Quantity, kept only until
// those two files import shared/kubernetes/quantity (the one copy) directly.
export type { Quantity as Amount } from '../../shared/kubernetes/quantity';
export {
  addQuantities as addAmounts,
  compareQuantities as compareAmounts,
  exactMilliValue as amountMilliValue,
  exactValue as amountValue,
  formatQuantity as formatAmount,
  parseQuantity as parseAmount,
  subtractQuantities as subtractAmounts,
} from '../../shared/kubernetes/quantity';
