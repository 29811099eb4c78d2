// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {LaunchParams} from "./LaunchTypes.sol";
import {LaunchFactory} from "./LaunchFactory.sol";
import {DividendDistributor} from "./DividendDistributor.sol";
import {TaxHook, TaxPolicy, TaxTerms} from "./TaxHook.sol";

/// @title TaxLaunchFactory
/// @notice The factory of inclusive tax launches: the current factory (native launch fee, creator rights,
/// metadata) whose launches carry tax terms (checked by the hook against the policy frozen into the pool),
/// and whose tokens report balances to the dividend distributor. `createLaunch` without terms is refused.
contract TaxLaunchFactory is LaunchFactory {
    using PoolIdLibrary for PoolKey;

    uint256 private constant PS = 100_000_000;

    DividendDistributor public immutable dividendDistributor;
    TaxPolicy private _policy;
    TaxTerms private _pending;
    bool private _pendingSet;

    event TaxPolicyUpdated(TaxPolicy policy);

    error TaxTermsRequired();

    /// Defaults (the reference fixture): buy and sell 1%–10%; protocol share 10%, minimum 0.5%, maximum 1%,
    /// paid to the owner; anti-snipe from 99% over 20 s; minimum holding 10,000 tokens.
    constructor(
        IPoolManager poolManager_,
        TaxHook hook_,
        address feeEscrow_,
        address owner_,
        DividendDistributor distributor_
    ) LaunchFactory(poolManager_, hook_, feeEscrow_, owner_) {
        dividendDistributor = distributor_;
        _setTaxPolicy(TaxPolicy(1_000_000, 10_000_000, 1_000_000, 10_000_000, 10_000_000, 500_000, 1_000_000, owner_, 99_000_000, 20, 10_000e18));
    }

    function taxPolicy() external view returns (TaxPolicy memory) {
        return _policy;
    }

    function setTaxPolicy(TaxPolicy calldata p) external onlyOwner {
        _setTaxPolicy(p);
    }

    /// @notice Launches a tax token; the hook refuses terms the policy does not allow.
    function createTaxLaunch(LaunchParams calldata p, TaxTerms calldata t)
        external
        payable
        returns (address token, PoolId poolId)
    {
        uint256 nativeFee = _nativeFeeDue();
        if (msg.value != nativeFee) revert InvalidNativeLaunchFeePayment(nativeFee, msg.value);
        _pending = t;
        _pendingSet = true;
        Launch memory l = _core(p);
        l.creatorFeeRecipient = t.creatorFeeRecipient;
        PoolKey memory key;
        (token, key) = _launch(l, msg.sender);
        poolId = key.toId();
        delete _pending;
        _pendingSet = false;
        _payLaunchFee();
    }

    function _setTaxPolicy(TaxPolicy memory p) private {
        if (
            p.minimumBuyTaxRate > p.maximumBuyTaxRate || p.maximumBuyTaxRate > 50_000_000
                || p.minimumSellTaxRate > p.maximumSellTaxRate || p.maximumSellTaxRate > 50_000_000
                || p.protocolTaxShare > PS || p.minimumProtocolFeeRate > p.maximumProtocolFeeRate
                || p.maximumProtocolFeeRate > PS || p.protocolFeeRecipient == address(0)
                || p.antiSnipeStartRate > 99_000_000
        ) revert InvalidConfig();
        _policy = p;
        emit TaxPolicyUpdated(p);
    }

    function _taxTokens() internal pure override returns (bool) {
        return true;
    }

    function _deployToken(bytes32 scopedSalt, Launch memory p, uint256 supply) internal override returns (address token) {
        token = super._deployToken(scopedSalt, p, supply);
        dividendDistributor.registerToken(token, p.quote, _pending.minimumDividendHolding);
    }

    function _registerPool(PoolKey memory key, bool token0, address creator, address feeRecipient) internal override {
        if (!_pendingSet) revert TaxTermsRequired();
        TaxTerms memory t = _pending;
        t.creatorFeeRecipient = feeRecipient;
        TaxHook(address(hook)).registerTaxPool(key, token0, creator, t, _policy, launchSupply);
    }
}
